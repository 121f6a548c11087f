import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `schemebridge which` and `schemebridge list` end to end: each level of the service's order
/// (handler option, remembered choice, route, default) explained, and the answer checked against
/// what the service really opens for that caller.
@Suite struct WhichListTests {
    static func which(_ f: ServiceFixture, _ args: String...) async throws -> ProcessResult {
        try await Tools.run([try Built.executable("schemebridge"), "which"] + args,
                            environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
    }

    @Test func whichExplainsEachLevelAndAgreesWithWhatOpens() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // app-one remembers b.desktop ("always" in the chooser); a route sends app-two to c.desktop.
        let (one, two) = try await f.installTodoWithChoiceAndRoute()
        let three = try f.pythonNamed("app-three")

        // No caller named: the default, and the apps that get another handler.
        let plain = try await Self.which(f, "todo://x")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == """
            a.desktop
              why: no mimeapps.list names a default of the scheme 'todo': the first eligible entry in directory order ($XDG_DATA_HOME/applications, then each $XDG_DATA_DIRS/applications; by desktop id within one)
              other handlers: b.desktop, c.desktop
              \(one) gets b.desktop (its remembered choice)
              apps matching \(two) get c.desktop (a [Routes] line in the config)

            """, "\(plain.stdout)")

        // Each caller: what `which` says, then what the service really does for it.
        for (caller, handler, reason, name) in [(one, "b.desktop", "remembered-choice", "b"), (two, "c.desktop", "route", "c"),
                                                (three, "a.desktop", "default", "a")] {
            let r = try await Self.which(f, "--caller", caller, "--json", "todo://y")
            #expect(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
            #expect(json["handler"] as? String == handler && json["reason"] as? String == reason && json["caller"] as? String == caller, "\(r.stdout)")
            #expect(json["handlers"] as? [String] == ["a.desktop", "b.desktop", "c.desktop"] && json["default"] as? String == "a.desktop", "\(r.stdout)")
            let url = "todo://from-\(name)"
            #expect(try await f.open(url, from: caller, "plain") == "opened")
            #expect(await f.handled(name, url), "which said \(handler) for \(caller)")
        }
        let remembered = try await Self.which(f, "--caller", one, "todo://z")
        #expect(remembered.stdout.hasPrefix("b.desktop\n  why: \(one) chose it with \"always\" for the scheme 'todo'"), "\(remembered.stdout)")
        let routed = try await Self.which(f, "--caller", two, "todo://z")
        #expect(routed.stdout.hasPrefix("c.desktop\n  why: the [Routes] line 'todo from \(two)' of the config"), "\(routed.stdout)")

        // The handler option comes before the remembered choice, and the service agrees.
        let option = try await Self.which(f, "--caller", one, "--handler", "c.desktop", "todo://w")
        #expect(option.stdout.hasPrefix("c.desktop\n  why: asked for with the handler option"), "\(option.stdout)")
        #expect(try await f.open("todo://w", from: one, "c.desktop") == "opened c.desktop")

        // A default set by the user changes the answer for callers without a choice or route.
        #expect(try await CLITests.cli(f, "default", "todo", "c.desktop").status == 0)
        let changed = try await Self.which(f, "--caller", three, "todo://v")
        #expect(changed.stdout.hasPrefix("c.desktop\n  why: the default of the scheme 'todo', named in [Default Applications] of $XDG_CONFIG_HOME/mimeapps.list"),
                "\(changed.stdout)")

        // Errors: not a handler (2), no handler (3), a malformed URL (1).
        let notHandler = try await Self.which(f, "--handler", "zzz.desktop", "todo://x")
        #expect(notHandler.status == 2 && notHandler.stderr.contains("not a handler"), "\(notHandler.status) \(notHandler.stderr)")
        let none = try await Self.which(f, "nothing://x")
        #expect(none.status == 3 && none.stderr.contains("no application handles the scheme 'nothing'"), "\(none.status) \(none.stderr)")
        let malformed = try await Self.which(f, "todo://a\u{01}b")
        #expect(malformed.status == 1, "\(malformed.status) \(malformed.stderr)")
    }

    /// The default's level: each `mimeapps.list` of the MIME Apps spec's order, written from the
    /// lowest precedence up, takes over from the one before it, and `which` names its file, its
    /// level and the `XDG_CURRENT_DESKTOP` component of a desktop-specific one; `defaults.list`
    /// is not read; at the end the service opens what `which` said.
    @Test func whichNamesTheMimeappsLevelOfTheDefault() async throws {
        let f = try ServiceFixture(extraEnvironment: ["XDG_CURRENT_DESKTOP": "GNOME:Phosh"])
        defer { f.stop() }
        for name in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            try f.entry("\(name).desktop", "Name=\(name.uppercased())\nExec=\(try f.recorder(name)) %u\nMimeType=x-scheme-handler/todo;")
        }
        let sysconfig = f.root.appendingPathComponent("sysconfig"), systemApps = f.systemData.appendingPathComponent("applications")
        func write(_ dir: URL, _ name: String, _ id: String) throws {
            try "[Default Applications]\nx-scheme-handler/todo=\(id).desktop;\n".write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        func which() async throws -> [String: Any] {
            let r = try await Self.which(f, "--json", "todo://x")
            return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        }
        /// Waits for `which` to answer `id` (the service reads the lists live), then checks its level.
        func expectLevel(_ id: String, _ level: String, _ file: URL?, desktop: String?, _ sentence: String) async throws {
            var json: [String: Any] = [:]
            _ = try await Tools.eventually { json = try await which(); return json["handler"] as? String == "\(id).desktop" }
            let origin = json["default_origin"] as? [String: Any] ?? [:]
            #expect(json["handler"] as? String == "\(id).desktop" && origin["level"] as? String == level && json["reason"] as? String == "default"
                    && origin["file"] as? String == file?.path && origin["desktop"] as? String == desktop && json["file"] == nil, "\(json)")
            let text = try await Self.which(f, "todo://x")
            #expect(text.status == 0 && text.stdout.hasPrefix("\(id).desktop\n  why: \(sentence)"), "\(text.stdout)\(text.stderr)")
        }

        try await expectLevel("a", "directory-order", nil, desktop: nil, "no mimeapps.list names a default of the scheme 'todo': the first eligible entry in directory order")
        // defaults.list (GLib's legacy file) is not read: still directory order.
        try write(systemApps, "defaults.list", "h")
        try write(systemApps, "mimeapps.list", "b")
        let dataDirs = systemApps.appendingPathComponent("mimeapps.list")
        try await expectLevel("b", "data-dirs", dataDirs, desktop: nil,
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_DATA_DIRS/applications/mimeapps.list, beside the installed applications (\(dataDirs.path))")
        try write(f.applications, "mimeapps.list", "c")
        let dataHome = f.applications.appendingPathComponent("mimeapps.list")
        try await expectLevel("c", "data-home", dataHome, desktop: nil,
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_DATA_HOME/applications/mimeapps.list, beside the user's applications (\(dataHome.path))")
        try write(sysconfig, "mimeapps.list", "d")
        let configDirs = sysconfig.appendingPathComponent("mimeapps.list")
        try await expectLevel("d", "config-dirs", configDirs, desktop: nil,
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_CONFIG_DIRS/mimeapps.list, the system's configuration (\(configDirs.path))")
        try write(sysconfig, "gnome-mimeapps.list", "e")
        let configDirsDesktop = sysconfig.appendingPathComponent("gnome-mimeapps.list")
        try await expectLevel("e", "config-dirs", configDirsDesktop, desktop: "gnome",
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_CONFIG_DIRS/gnome-mimeapps.list, the system's configuration (\(configDirsDesktop.path)), read because XDG_CURRENT_DESKTOP names gnome")
        try write(f.configHome, "mimeapps.list", "f")
        let configHome = f.configHome.appendingPathComponent("mimeapps.list")
        try await expectLevel("f", "config-home", configHome, desktop: nil,
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_CONFIG_HOME/mimeapps.list, the user's own (\(configHome.path))")
        // The second XDG_CURRENT_DESKTOP component's list, then the first's, which comes before it.
        try write(f.configHome, "phosh-mimeapps.list", "g")
        let phosh = f.configHome.appendingPathComponent("phosh-mimeapps.list")
        try await expectLevel("g", "config-home", phosh, desktop: "phosh",
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_CONFIG_HOME/phosh-mimeapps.list, the user's own (\(phosh.path)), read because XDG_CURRENT_DESKTOP names phosh")
        try write(f.configHome, "gnome-mimeapps.list", "h")
        let gnome = f.configHome.appendingPathComponent("gnome-mimeapps.list")
        try await expectLevel("h", "config-home", gnome, desktop: "gnome",
                              "the default of the scheme 'todo', named in [Default Applications] of $XDG_CONFIG_HOME/gnome-mimeapps.list, the user's own (\(gnome.path)), read because XDG_CURRENT_DESKTOP names gnome")
        // What the service opens is what `which` said.
        let open = try await CLITests.cli(f, "open", "todo://level")
        #expect(open.status == 0, "\(open.stderr)")
        #expect(await f.handled("h", "todo://level"))
    }

    @Test func whichTellsWhatOpensAFile() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Notes.desktop", "Name=Notes\nExec=\(try f.recorder("notes")) %f\nMimeType=text/plain;")
        let file = f.root.appendingPathComponent("note.txt")
        try "hello\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try await Self.which(f, file.path)
        #expect(r.status == 0 && r.stdout.hasPrefix("org.example.Notes.desktop\n  why: no mimeapps.list names a default of the type text/plain: the first eligible entry in directory order"),
                "\(r.status) \(r.stdout) \(r.stderr)")
        // A default for text/plain in the user's mimeapps.list; a Markdown file gets its parent's.
        try f.entry("org.example.Edit.desktop", "Name=Edit\nExec=\(try f.recorder("edit")) %f\nMimeType=text/plain;")
        let list = f.configHome.appendingPathComponent("mimeapps.list")
        try "[Default Applications]\ntext/plain=org.example.Edit.desktop\n".write(to: list, atomically: true, encoding: .utf8)
        let markdown = f.root.appendingPathComponent("read-me.md")
        try "# hello\n".write(to: markdown, atomically: true, encoding: .utf8)
        var edit = r
        _ = try await Tools.eventually { edit = try await Self.which(f, markdown.path); return edit.stdout.hasPrefix("org.example.Edit.desktop\n") }
        #expect(edit.stdout.hasPrefix("""
            org.example.Edit.desktop
              why: the default of the type text/markdown (the type has no handler of its own: those of its parent text/plain are used), \
            named in [Default Applications] of $XDG_CONFIG_HOME/mimeapps.list, the user's own (\(list.path))
            """), "\(edit.stdout)\(edit.stderr)")
        let missing = try await Self.which(f, f.root.appendingPathComponent("absent.txt").path)
        #expect(missing.status == 2, "\(missing.status) \(missing.stderr)")
    }

    @Test func listShowsEverySchemeWithItsDefaultAndTheOthers() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers(gamma: true)
        try f.entry("notes.desktop", "Name=Notes\nExec=\(try f.recorder("n")) %u\nMimeType=x-scheme-handler/notes;")
        #expect(try await CLITests.cli(f, "default", "todo", "b.desktop").status == 0)
        let text = try await CLITests.cli(f, "list")
        // Each handler by its display name (Name=), its desktop id beside it (issue 27, item 4).
        #expect(text.status == 0 && text.stdout == "notes\tNotes (notes.desktop)\ntodo\tBeta (b.desktop)\tAlpha (a.desktop), Gamma (c.desktop)\n",
                "\(text.stdout)\(text.stderr)")
        let json = try await CLITests.cli(f, "list", "--json")
        #expect(json.stdout == """
            {"schemes":[{"scheme":"notes","default":"notes.desktop","others":[],"handlers":[{"desktop_id":"notes.desktop","name":"Notes"}]},\
            {"scheme":"todo","default":"b.desktop","others":["a.desktop","c.desktop"],"handlers":[{"desktop_id":"b.desktop","name":"Beta"},\
            {"desktop_id":"a.desktop","name":"Alpha"},{"desktop_id":"c.desktop","name":"Gamma"}]}]}

            """, "\(json.stdout)")
        // Nothing installed: an empty list, not an error.
        let g = try ServiceFixture()
        defer { g.stop() }
        let empty = try await CLITests.cli(g, "list", "--json")
        #expect(empty.status == 0 && empty.stdout == "{\"schemes\":[]}\n", "\(empty.status) \(empty.stdout)\(empty.stderr)")
    }
}
