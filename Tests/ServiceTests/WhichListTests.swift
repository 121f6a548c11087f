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
              why: the default of the scheme 'todo': mimeapps.list's [Default Applications], else the first eligible entry in directory order
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
        #expect(changed.stdout.hasPrefix("c.desktop\n  why: the default of the scheme 'todo'"), "\(changed.stdout)")

        // Errors: not a handler (2), no handler (3), a malformed URL (1).
        let notHandler = try await Self.which(f, "--handler", "zzz.desktop", "todo://x")
        #expect(notHandler.status == 2 && notHandler.stderr.contains("not a handler"), "\(notHandler.status) \(notHandler.stderr)")
        let none = try await Self.which(f, "nothing://x")
        #expect(none.status == 3 && none.stderr.contains("no application handles the scheme 'nothing'"), "\(none.status) \(none.stderr)")
        let malformed = try await Self.which(f, "todo://a\u{01}b")
        #expect(malformed.status == 1, "\(malformed.status) \(malformed.stderr)")
    }

    @Test func whichTellsWhatOpensAFile() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Notes.desktop", "Name=Notes\nExec=\(try f.recorder("notes")) %f\nMimeType=text/plain;")
        let file = f.root.appendingPathComponent("note.txt")
        try "hello\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try await Self.which(f, file.path)
        #expect(r.status == 0 && r.stdout.hasPrefix("org.example.Notes.desktop\n  why: the default of the type text/plain"), "\(r.status) \(r.stdout) \(r.stderr)")
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
