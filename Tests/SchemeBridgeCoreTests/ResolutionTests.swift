import Foundation
import Testing
@testable import SchemeBridgeCore

@Suite struct XDGDirectoriesTests {
    @Test func defaultsAndRelativePaths() {
        let x = XDGDirectories(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "rel/path", "XDG_DATA_DIRS": "",
                                             "XDG_CONFIG_DIRS": "relative:/etc/a/:/etc/a", "XDG_CURRENT_DESKTOP": "GNOME:ubuntu:bad name:KDE"])
        #expect(x.dataHome == "/home/u/.local/share")
        #expect(x.configHome == "/home/u/.config")
        #expect(x.dataDirs == ["/usr/local/share", "/usr/share"])
        #expect(x.configDirs == ["/etc/a"])
        #expect(x.currentDesktops == ["gnome", "ubuntu", "kde"])
        #expect(x.applicationsDirectories.map(\.path) == ["/home/u/.local/share/applications", "/usr/local/share/applications", "/usr/share/applications"])
        #expect(x.mimeappsDirectories.map(\.path) == ["/home/u/.config", "/etc/a", "/home/u/.local/share/applications", "/usr/local/share/applications", "/usr/share/applications"])
        #expect(x.mimeappsFileNames == ["gnome-mimeapps.list", "ubuntu-mimeapps.list", "kde-mimeapps.list", "mimeapps.list"])
        #expect(x.userMimeappsList == "/home/u/.config/mimeapps.list")
        let y = XDGDirectories(environment: ["HOME": "/h", "XDG_CONFIG_DIRS": "rel"])
        #expect(y.configDirs == ["/etc/xdg"])
    }
}

@Suite struct ResolutionTests {
    @Test func vendorIDsFromSubdirectories() throws {
        let t = XDGTree()
        t.entry(1, "vendor/app.desktop", schemes: ["todo"])
        t.entry(1, "vendor/sub/deep.desktop", schemes: ["todo"])
        t.entry(1, "plain.desktop", schemes: ["todo"])
        let r = t.registry()
        #expect(r.handlers(forScheme: "todo") == ["plain.desktop", "vendor-app.desktop", "vendor-sub-deep.desktop"])
        let e = try #require(r.entry(id: "vendor-sub-deep.desktop"))
        #expect(e.path == t.apps(1) + "/vendor/sub/deep.desktop")
        #expect(e.dataDirectory == t.dataDirs[0])
        #expect(e.applicationsDirectory == t.apps(1))
    }

    @Test func idCollisionInOneDirectoryPicksFirstPathInByteOrder() {
        let t = XDGTree()
        t.entry(1, "a/b-c.desktop", schemes: ["one"])
        t.entry(1, "a-b/c.desktop", schemes: ["two"])
        let r = t.registry()
        #expect(r.handlers(forScheme: "two") == ["a-b-c.desktop"])
        #expect(r.handlers(forScheme: "one") == [])
    }

    @Test func higherDirectoryMasksSameID() throws {
        let t = XDGTree()
        t.entry(0, "app.desktop", schemes: ["foo"])
        t.entry(1, "app.desktop", schemes: ["bar"])
        t.entry(2, "app.desktop", schemes: ["baz"])
        let r = t.registry()
        #expect(r.handlers(forScheme: "foo") == ["app.desktop"])
        #expect(r.handlers(forScheme: "bar") == [])
        #expect(r.handlers(forScheme: "baz") == [])
        #expect(r.entry(id: "app.desktop")?.path == t.apps(0) + "/app.desktop")
        #expect(r.schemes == ["foo"])
    }

    @Test func hiddenDeletesAndMasks() {
        let t = XDGTree()
        t.entry(0, "app.desktop", extra: "Hidden=true")
        t.entry(1, "app.desktop", schemes: ["todo"])
        t.entry(1, "other.desktop", schemes: ["todo"], extra: "Hidden=true")
        t.entry(1, "third.desktop", schemes: ["todo"], extra: "Hidden=false")
        let r = t.registry()
        #expect(r.handlers(forScheme: "todo") == ["third.desktop"])
        #expect(r.entry(id: "app.desktop") == nil)
        #expect(r.recentWarnings.isEmpty, "Hidden is not a problem: \(r.recentWarnings)")
    }

    @Test func tryExec() throws {
        let t = XDGTree()
        t.mkdir(t.bin)
        t.write(t.bin + "/mytool", "#!/bin/sh\n")
        chmod(t.bin + "/mytool", 0o755)
        t.write(t.bin + "/notexec", "x")
        t.entry(1, "abs-ok.desktop", schemes: ["s"], extra: "TryExec=/bin/sh")
        t.entry(1, "abs-missing.desktop", schemes: ["s"], extra: "TryExec=/nonexistent/tool")
        t.entry(1, "path-ok.desktop", schemes: ["s"], extra: "TryExec=mytool")
        t.entry(1, "path-missing.desktop", schemes: ["s"], extra: "TryExec=no-such-tool-xyz")
        t.entry(1, "not-executable.desktop", schemes: ["s"], extra: "TryExec=\(t.bin)/notexec")
        t.entry(1, "empty.desktop", schemes: ["s"], extra: "TryExec=")
        let r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["abs-ok.desktop", "empty.desktop", "path-ok.desktop"])
        #expect(r.recentWarnings.isEmpty)
        // The PATH used is the one given, not the process's.
        t.extraEnvironment["PATH"] = "/usr/bin:/bin"
        #expect(t.registry().handlers(forScheme: "s") == ["abs-ok.desktop", "empty.desktop"])
    }

    @Test func invalidEntriesAreSkippedWithOneWarning() throws {
        let t = XDGTree()
        t.entry(1, "bad-code.desktop", schemes: ["s"], exec: "app %z")
        t.entry(1, "no-exec.desktop", schemes: ["s"], exec: "")
        t.write(t.apps(1) + "/no-type.desktop", "[Desktop Entry]\nName=x\nExec=app\nMimeType=x-scheme-handler/s;\n")
        t.write(t.apps(1) + "/wrong-first.desktop", "[Other]\nA=b\n[Desktop Entry]\nType=Application\nExec=app\nMimeType=x-scheme-handler/s;\n")
        t.write(t.apps(1) + "/syntax.desktop", "[Desktop Entry]\nType=Application\nthis is not a key\n")
        t.writeBytes(t.apps(1) + "/latin1.desktop", Array("[Desktop Entry]\nType=Application\nName=Caf".utf8) + [0xE9] + Array("\nExec=app\n".utf8))
        t.write(t.apps(1) + "/link.desktop", "[Desktop Entry]\nType=Link\nURL=https://example.org\nMimeType=x-scheme-handler/s;\n")
        t.entry(1, "a.dbus.desktop", schemes: ["s"], exec: "", extra: "DBusActivatable=true")
        // Activatable without Exec, but its id makes no bus name: nothing can start it.
        t.entry(1, "dbus.desktop", schemes: ["s"], exec: "", extra: "DBusActivatable=true")
        t.entry(1, "good.desktop", schemes: ["s"])
        let r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["a.dbus.desktop", "good.desktop"])
        let warnings = r.recentWarnings.map(\.description)
        #expect(warnings.count == 7, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/dbus.desktop:") && $0.contains("Exec is empty") })
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/bad-code.desktop:") && $0.contains("%z") })
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/no-exec.desktop:") && $0.contains("Exec is empty") })
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/no-type.desktop:") && $0.contains("Type") })
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/wrong-first.desktop:3:") })
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/syntax.desktop:3:") })
        #expect(warnings.contains { $0.hasPrefix(t.apps(1) + "/latin1.desktop:3:") && $0.contains("UTF-8") })
        // An invalid file still masks its ID below it.
        t.entry(2, "bad-code.desktop", schemes: ["s"])
        #expect(!t.registry().handlers(forScheme: "s").contains("bad-code.desktop"))
    }

    @Test func entryKeysAreExposed() throws {
        let t = XDGTree()
        t.extraEnvironment["LANG"] = "de_DE.UTF-8"
        t.entry(1, "full.desktop", schemes: ["Todo", "mailto", "todo"], exec: "todo-app --open %u", extra: """
        Name[de]=Aufgaben
        Icon=todo-icon
        Path=/srv/work
        Terminal=true
        NoDisplay=true
        StartupNotify=false
        StartupWMClass=TodoWin
        X-LaunchImage=Splash
        X-LaunchImageDir=images
        X-SchemeBridge-AllowedCallers=org.example.A;org.example.B;
        X-Other=a\\sb
        MimeType=text/plain;x-scheme-handler/Todo;x-scheme-handler/mailto;x-scheme-handler/todo;
        """)
        let r = t.registry()
        let e = try #require(r.entry(id: "full.desktop"))
        #expect(e.name == "Aufgaben")
        #expect(e.icon == "todo-icon")
        #expect(e.workingDirectory == "/srv/work")
        #expect(e.terminal && e.noDisplay)
        #expect(e.startupNotify == false)
        #expect(e.startupWMClass == "TodoWin")
        #expect(e.launchImage == "Splash")
        #expect(e.launchImageDirectory == "images")
        #expect(e.extensionKeys == ["X-SchemeBridge-AllowedCallers": "org.example.A;org.example.B;", "X-Other": "a b"])
        #expect(e.schemes == ["todo", "mailto"])
        #expect(e.dbusActivatable == false)
        let commands = e.launchCommands(for: [try SchemeURL("todo://x")])
        #expect(commands == [LaunchCommand(argv: ["todo-app", "--open", "todo://x"], workingDirectory: "/srv/work")])
        #expect(DesktopID.busName("org.example.Todo.desktop") == "org.example.Todo")
        #expect(DesktopID.objectPath("org.example.my-app.desktop") == "/org/example/my_app")
    }

    @Test func orderWhenNothingChooses() {
        let t = XDGTree(dataDirCount: 2)
        t.entry(2, "a.desktop", schemes: ["s"])
        t.entry(1, "z.desktop", schemes: ["s"])
        t.entry(1, "m.desktop", schemes: ["s"])
        t.entry(0, "y.desktop", schemes: ["s"])
        t.entry(0, "B.desktop", schemes: ["s"])
        let r = t.registry()
        // Directory precedence first, then desktop ID in byte order (uppercase before lowercase).
        #expect(r.handlers(forScheme: "s") == ["B.desktop", "y.desktop", "m.desktop", "z.desktop", "a.desktop"])
        #expect(r.defaultHandler(forScheme: "S") == "B.desktop")
        #expect(r.handlers(forScheme: "nothing") == [])
        #expect(r.defaultHandler(forScheme: "nothing") == nil)
        #expect(r.handlers(forScheme: "not a scheme") == [])
    }

    @Test func defaultsFollowPrecedence() {
        let t = XDGTree()
        for id in ["a", "b", "c", "d", "e"] { t.entry(1, "\(id).desktop", schemes: ["s"]) }
        t.list(t.apps(1) + "/mimeapps.list", defaults: ["s": "e.desktop"])
        #expect(t.registry().defaultHandler(forScheme: "s") == "e.desktop")
        t.list(t.apps(0) + "/mimeapps.list", defaults: ["s": "d.desktop"])
        #expect(t.registry().defaultHandler(forScheme: "s") == "d.desktop")
        t.list(t.configDir + "/mimeapps.list", defaults: ["s": "c.desktop"])
        #expect(t.registry().defaultHandler(forScheme: "s") == "c.desktop")
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "b.desktop"])
        let r = t.registry()
        #expect(r.defaultHandler(forScheme: "s") == "b.desktop")
        #expect(r.handlers(forScheme: "s") == ["b.desktop", "a.desktop", "c.desktop", "d.desktop", "e.desktop"])
        // A value is a list: the first installed, eligible, associated one wins.
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "missing.desktop;bad id;d.desktop;b.desktop;"])
        #expect(t.registry().defaultHandler(forScheme: "s") == "d.desktop")
    }

    @Test func desktopSpecificDefaults() {
        let t = XDGTree(desktop: "GNOME:Unity")
        for id in ["a", "b", "c", "d"] { t.entry(1, "\(id).desktop", schemes: ["s"]) }
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "a.desktop"])
        t.list(t.configHome + "/unity-mimeapps.list", defaults: ["s": "b.desktop"])
        #expect(t.registry().defaultHandler(forScheme: "s") == "b.desktop")
        t.list(t.configHome + "/gnome-mimeapps.list", defaults: ["s": "c.desktop"])
        #expect(t.registry().defaultHandler(forScheme: "s") == "c.desktop")
        // A desktop-specific list of a lower directory does not beat the user's plain list.
        let u = XDGTree(desktop: "KDE")
        for id in ["a", "b"] { u.entry(1, "\(id).desktop", schemes: ["s"]) }
        u.list(u.configHome + "/mimeapps.list", defaults: ["s": "a.desktop"])
        u.list(u.configDir + "/kde-mimeapps.list", defaults: ["s": "b.desktop"])
        #expect(u.registry().defaultHandler(forScheme: "s") == "a.desktop")
        // Without that desktop, the file is not read.
        u.desktop = "XFCE"
        u.list(u.configHome + "/mimeapps.list")
        #expect(u.registry().defaultHandler(forScheme: "s") == "a.desktop")
        u.desktop = "KDE"
        #expect(u.registry().defaultHandler(forScheme: "s") == "b.desktop")
    }

    @Test func desktopSpecificListsCannotAddOrRemove() {
        let t = XDGTree(desktop: "gnome")
        t.entry(1, "a.desktop", schemes: ["s"])
        t.entry(1, "b.desktop")
        t.list(t.configHome + "/gnome-mimeapps.list", added: ["s": "b.desktop"], removed: ["s": "a.desktop"])
        let r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["a.desktop"])
        #expect(r.recentWarnings.count == 2)
        #expect(r.recentWarnings.allSatisfy { $0.message.contains("only allowed in files named mimeapps.list") })
    }

    @Test func defaultMustBeAssociated() {
        let t = XDGTree()
        t.entry(1, "handler.desktop", schemes: ["s"])
        t.entry(1, "unrelated.desktop", schemes: ["other"])
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "unrelated.desktop"])
        let r = t.registry()
        #expect(r.defaultHandler(forScheme: "s") == "handler.desktop")
        #expect(r.handlers(forScheme: "s") == ["handler.desktop"])
        // An Added Association makes it associated, so then it is the default.
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "unrelated.desktop"], added: ["s": "unrelated.desktop"])
        #expect(t.registry().handlers(forScheme: "s") == ["unrelated.desktop", "handler.desktop"])
    }

    @Test func removedAssociations() {
        let t = XDGTree()
        t.entry(0, "user.desktop", schemes: ["s"])
        t.entry(1, "sys.desktop", schemes: ["s"])
        t.entry(1, "other.desktop", schemes: ["s"])
        // Removed in the user's list: gone, and its Default entry is vetoed.
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "sys.desktop"], removed: ["s": "sys.desktop"])
        var r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["user.desktop", "other.desktop"])
        #expect(r.defaultHandler(forScheme: "s") == "user.desktop")
        // A removal in a lower directory does not touch an entry of a higher one.
        t.list(t.configHome + "/mimeapps.list")
        t.list(t.apps(1) + "/mimeapps.list", removed: ["s": "user.desktop;other.desktop"])
        r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["user.desktop", "sys.desktop"])
        // Removed then added in a higher list: the higher one wins.
        t.list(t.configHome + "/mimeapps.list", added: ["s": "other.desktop"])
        #expect(t.registry().handlers(forScheme: "s") == ["other.desktop", "user.desktop", "sys.desktop"])
    }

    @Test func addedAssociationsOrderAndMasking() {
        let t = XDGTree()
        t.entry(0, "user.desktop", schemes: ["s"])
        t.entry(1, "plain.desktop")
        t.entry(1, "plain2.desktop")
        t.entry(2, "masked.desktop")
        t.entry(1, "masked.desktop")
        t.list(t.configDir + "/mimeapps.list", added: ["s": "plain2.desktop;plain.desktop;not-installed.desktop"])
        var r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["plain2.desktop", "plain.desktop", "user.desktop"])
        // An addition in a lower directory naming an ID held by a higher one is ignored.
        t.list(t.configDir + "/mimeapps.list")
        t.list(t.apps(2) + "/mimeapps.list", added: ["s": "masked.desktop"])
        r = t.registry()
        #expect(r.handlers(forScheme: "s") == ["user.desktop"])
        // ... but an addition in the entry's own directory counts, after the higher ones.
        t.list(t.apps(1) + "/mimeapps.list", added: ["s": "masked.desktop"])
        #expect(t.registry().handlers(forScheme: "s") == ["user.desktop", "masked.desktop"])
    }

    @Test func brokenListIsIgnoredWithWarning() {
        let t = XDGTree()
        t.entry(1, "a.desktop", schemes: ["s"])
        t.entry(1, "b.desktop", schemes: ["s"])
        t.write(t.configHome + "/mimeapps.list", "[Default Applications]\nx-scheme-handler/s=b.desktop\ngarbage line\n")
        let r = t.registry()
        #expect(r.defaultHandler(forScheme: "s") == "a.desktop")
        #expect(r.recentWarnings.map(\.description) == [t.configHome + "/mimeapps.list:3: expected a comment, a [group] header or key=value; the whole file is ignored"])
    }

    @Test func warningHandlerReceivesWarnings() {
        let t = XDGTree()
        t.entry(1, "bad.desktop", schemes: ["s"], exec: "x %q")
        let seen = Mutex2<[String]>([])
        let r = Registry(environment: t.environment, watch: false) { w in seen.mutate { $0.append(w.description) } }
        #expect(r.handlers(forScheme: "s") == [])
        #expect(seen.value.count == 1)
    }
}

/// A tiny lock-protected box for test callbacks.
final class Mutex2<T: Sendable>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()
    init(_ v: T) { stored = v }
    func mutate(_ f: (inout T) -> Void) { lock.lock(); f(&stored); lock.unlock() }
    var value: T { lock.lock(); defer { lock.unlock() }; return stored }
}

@Suite struct LaunchCommandTests {
    @Test func fieldCodesFromARealEntry() throws {
        let t = XDGTree()
        t.extraEnvironment["LC_ALL"] = "fr_FR.UTF-8"
        let path = t.entry(1, "vendor/todo.desktop", schemes: ["todo"],
                           exec: #""/opt/To Do/bin/todo" --title=%c %i --from %k --url=%u"#,
                           extra: "Name[fr]=Tâches \"perso\"\nIcon=/icons/todo.png\nPath=/tmp")
        let r = t.registry()
        let e = try #require(r.entry(id: "vendor-todo.desktop"))
        let cmds = e.launchCommands(for: [try SchemeURL("todo://a b"), try SchemeURL("todo://$(c)")])
        #expect(cmds == [
            LaunchCommand(argv: ["/opt/To Do/bin/todo", "--title=Tâches \"perso\"", "--icon", "/icons/todo.png", "--from", path, "--url=todo://a b"], workingDirectory: "/tmp"),
            LaunchCommand(argv: ["/opt/To Do/bin/todo", "--title=Tâches \"perso\"", "--icon", "/icons/todo.png", "--from", path, "--url=todo://$(c)"], workingDirectory: "/tmp"),
        ])
    }

    @Test func dbusActivatableEntry() throws {
        let t = XDGTree()
        t.entry(1, "org.example.Todo.desktop", schemes: ["todo"], exec: "", extra: "DBusActivatable=true")
        let e = try #require(t.registry().entry(id: "org.example.Todo.desktop"))
        #expect(e.dbusActivatable)
        #expect(e.launchCommands(for: [try SchemeURL("todo:x")]).isEmpty)
        #expect(e.busName == "org.example.Todo")
        #expect(e.objectPath == "/org/example/Todo")
    }
}

extension WatcherTests {
    @Suite struct ConcurrencyTests {
        /// Lookups from several threads while the watcher applies changes: no crash, and every
        /// answer is one of the valid states.
        @Test func lookupsDuringUpdates() async throws {
            let t = XDGTree()
            t.entry(1, "base.desktop", schemes: ["c"])
            let r = t.registry(watch: true)
            defer { r.close() }
            let stop = Mutex2(false)
            let bad = Mutex2(0)
            var threads: [Thread] = []
            for _ in 0..<2 {
                let th = Thread {
                    while !stop.value {
                        let h = r.handlers(forScheme: "c")
                        if h.first == nil || !h.contains("base.desktop") { bad.mutate { $0 += 1 } }
                        _ = r.schemes
                        _ = r.entry(id: "base.desktop")
                        sched_yield()
                    }
                }
                th.start()
                threads.append(th)
            }
            for i in 0..<50 {
                t.entry(0, "n\(i % 10).desktop", schemes: ["c"])
                if i % 3 == 0 { unlink(t.apps(0) + "/n\((i + 5) % 10).desktop") }
            }
            #expect(await waitUntil(timeout: .seconds(5)) { r.handlers(forScheme: "c").count >= 2 } != nil)
            stop.mutate { $0 = true }
            try await Task.sleep(for: .milliseconds(50))
            #expect(bad.value == 0)
        }
    }
}
