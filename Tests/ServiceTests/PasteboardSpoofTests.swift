import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 21, item 4: a pasteboard hand-off cannot be spoofed. Names are per owner, so an attacker
/// that saw the name (it is in the URL) makes a pasteboard of the same name, writes forged data
/// and grants it to the viewer. The viewer launched for the owner's pasteboard must read the
/// owner's data (the launched-for pasteboard wins), a viewer not launched for either gets
/// `AmbiguousPasteboard` (never the newest), and the handler is handed the unguessable object
/// path: `SCHEMEBRIDGE_PASTEBOARD_PATH` when spawned, `pasteboard-path` in `platform_data` when
/// D-Bus activated.
@Suite struct PasteboardSpoofTests {
    /// The owner (seed 001's editor): a pasteboard of a unique name holding `{"pay":"alice"}`,
    /// opened with `url` + name and the `pasteboard` option. Prints the name.
    static let ownerScript = """
        from pb import *
        import sys, dbus
        b = bus()
        path, name = boards(b).CreatePasteboard('', {})
        board(b, path).SetItems([{'application/json': dbus.ByteArray(b'{"pay":"alice"}')}])
        dbus.Interface(b.get_object(N, O), N).OpenURLWithOptions(sys.argv[1] + name, {'pasteboard': name}, timeout=120)
        print(name)
        """

    /// The attacker: its own pasteboard of the seen name, forged data, granted to the viewer.
    static let attackerScript = """
        from pb import *
        import sys, dbus
        b = bus()
        path, name = boards(b).CreatePasteboard(sys.argv[1], {})
        board(b, path).SetItems([{'application/json': dbus.ByteArray(b'{"pay":"mallory"}')}])
        board(b, path).Grant([sys.argv[2]])
        print(name == sys.argv[1])
        """

    /// What a viewer reads: by name (FindPasteboard) and by the path it was handed.
    static let readBoth = """
        def by_name(b, name):
            try: return bytes(board(b, boards(b).FindPasteboard(name)).ReadBytes(0, 'application/json')).decode()
            except dbus.DBusException as e: return e.get_dbus_name().replace(ERR, '')
        def by_path(b, path):
            return bytes(board(b, path).ReadBytes(0, 'application/json')).decode() if path else 'no path'
        """

    /// Opens the viewer's gate (the attack is done) and returns what it read, from `records/<file>`.
    static func viewerRead(_ f: ServiceFixture, _ file: String) async -> [String: String] {
        f.release("view")
        let out = f.records.appendingPathComponent(file)
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: out.path) }, "\(f.serviceLog)")
        return (try? JSONSerialization.jsonObject(with: Data(contentsOf: out))) as? [String: String] ?? [:]
    }

    @Test func theSpawnedViewerReadsTheOwnersDataNotTheAttackers() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The viewer's entry runs its program directly, so the viewer is org.example.Viewer (as
        // an app started from its entry is); it waits on a gate, so the attack lands first.
        let viewer = try f.pythonNamed("viewer")
        let script = f.root.appendingPathComponent("viewer.py").path
        try """
            import sys, os, time, json, urllib.parse
            os.environ['SB_BUS'] = '\(f.bus.address)'
            sys.path.insert(0, '\(try f.pasteboardModule())')
            from pb import *
            import dbus
            \(Self.readBoth)
            while not os.path.exists('\(f.gate.file("view"))') and os.path.isdir('\(f.gate.directory.path)'): time.sleep(0.1)
            b = bus()
            name = urllib.parse.urlsplit(sys.argv[1]).fragment
            out = {'name': by_name(b, name), 'path': by_path(b, os.environ.get('SCHEMEBRIDGE_PASTEBOARD_PATH', ''))}
            open('\(f.records.path)/viewer.tmp', 'w').write(json.dumps(out))
            os.rename('\(f.records.path)/viewer.tmp', '\(f.records.path)/viewer.json')
            """.write(toFile: script, atomically: true, encoding: .utf8)
        try f.entry("org.example.Viewer.desktop", "Name=Viewer\nExec=\(viewer) \(script) %u\nMimeType=x-scheme-handler/viewer;")

        let owner = try await f.runPython(Self.ownerScript, python: try f.pythonNamed("owner-app"), ["viewer://?ReadPasteboardData#"])
        let name = owner.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(name.hasPrefix("pasteboard-"), "\(owner.stdout)\(owner.stderr)\n\(f.serviceLog)")
        // The attacker is another app (a hard link of python under another name).
        let attack = try await f.runPython(Self.attackerScript, python: try f.pythonNamed("mallory"), [name, "org.example.Viewer"])
        #expect(attack.stdout == "True\n", "\(attack.stdout)\(attack.stderr)")

        let read = await Self.viewerRead(f, "viewer.json")
        #expect(read["name"] == "{\"pay\":\"alice\"}", "FindPasteboard in the launched viewer: \(read)")
        #expect(read["path"] == "{\"pay\":\"alice\"}", "SCHEMEBRIDGE_PASTEBOARD_PATH: \(read)")

        // The same viewer app not launched for it (run again by hand): both owners granted it a
        // pasteboard of that name, so the name alone is ambiguous, never the newest.
        let later = try await f.runPython("""
            from pb import *
            import sys, dbus
            \(Self.readBoth)
            print(by_name(bus(), sys.argv[1]))
            """, python: viewer, [name])
        #expect(later.stdout == "\(ContractError.ambiguousPasteboard.rawValue)\n", "\(later.stdout)\(later.stderr)")
    }

    @Test func anActivatedViewerIsHandedThePathAndReadsTheOwnersData() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.ActiveViewer.desktop", "Name=Active Viewer\nDBusActivatable=true\nMimeType=x-scheme-handler/aviewer;")
        let viewer = try f.pythonNamed("active-viewer")
        // The app answers Open at once and reads once the gate opens (after the attack).
        let app = try Tools.spawn([viewer, "-c", """
            import sys, os, json, urllib.parse, dbus, dbus.service
            sys.path.insert(0, '\(try f.pasteboardModule())')
            os.environ['SB_BUS'] = sys.argv[1]
            from pb import *
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            \(Self.readBoth)
            b = dbus.bus.BusConnection(sys.argv[1])
            def later(url, path):
                if not os.path.exists('\(f.gate.file("view"))') and os.path.isdir('\(f.gate.directory.path)'): return True
                out = {'name': by_name(b, urllib.parse.urlsplit(url).fragment), 'path': by_path(b, path)}
                open('\(f.records.path)/active.tmp', 'w').write(json.dumps(out))
                os.rename('\(f.records.path)/active.tmp', '\(f.records.path)/active.json')
                return False
            class App(dbus.service.Object):
                @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
                def Open(self, uris, platform):
                    GLib.timeout_add(100, later, str(uris[0]), str(platform.get('pasteboard-path', '')))
            name = dbus.service.BusName('org.example.ActiveViewer', b)
            App(b, '/org/example/ActiveViewer')
            GLib.MainLoop().run()
            """, f.bus.address])
        defer { app.terminate() }
        #expect(await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus.NameHasOwner", "string:org.example.ActiveViewer"])
            return r?.stdout.contains("boolean true") == true
        })
        let owner = try await f.runPython(Self.ownerScript, python: try f.pythonNamed("owner-app"), ["aviewer://?ReadPasteboardData#"])
        let name = owner.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(name.hasPrefix("pasteboard-"), "\(owner.stdout)\(owner.stderr)\n\(f.serviceLog)")
        // The running app is known by its executable; the attacker grants exactly that.
        let attack = try await f.runPython(Self.attackerScript, python: try f.pythonNamed("mallory"), [name, viewer])
        #expect(attack.stdout == "True\n", "\(attack.stdout)\(attack.stderr)")

        let read = await Self.viewerRead(f, "active.json")
        #expect(read["name"] == "{\"pay\":\"alice\"}", "FindPasteboard in the activated viewer: \(read)")
        #expect(read["path"] == "{\"pay\":\"alice\"}", "platform_data pasteboard-path: \(read)")
    }

    @Test func theCLIReadingAnAmbiguousNameFailsWithStatus4AndNamesThePath() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let third = try PasteboardCLIWorld.app(w.f, "third-app", "org.example.Third")
        for app in [w.owner, third] {
            #expect(try await w.pasteboard(app, "create", "shared").status == 0)
            #expect(try await w.pasteboard(app, "write", "shared", "text/plain", "-", stdin: w.file("in-\(app.hashValue)", app)).status == 0)
            #expect(try await w.pasteboard(app, "grant", "shared", "org.example.Other").status == 0)
        }
        let read = try await w.pasteboard(w.other, "read", "shared")
        #expect(read.status == 4 && read.stdout.isEmpty && read.stderr.contains("object path"), "\(read.status) \(read.stdout) \(read.stderr)")
    }
}
