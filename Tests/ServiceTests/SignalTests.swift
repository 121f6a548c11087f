import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Signals and D-Bus activation, seen by python3-dbus clients.
@Suite struct SignalTests {
    /// A python3-dbus client that subscribes to the contract's signals, runs `actions` (python
    /// statements using `svc`, the service proxy), waits for `count` signals, prints them as JSON.
    func watch(_ f: ServiceFixture, count: Int, actions: String) async throws -> [[String: Any]] {
        let script = """
            import sys, json, dbus
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            bus = dbus.bus.BusConnection(sys.argv[1])
            seen = []
            loop = GLib.MainLoop()
            def record(*args, **kw):
                seen.append({'member': kw['member'], 'args': [plain(a) for a in args]})
                if len(seen) >= \(count): loop.quit()
            def plain(v):
                if isinstance(v, dbus.Dictionary): return {str(k): plain(x) for k, x in v.items()}
                if isinstance(v, (dbus.Array, list)): return [plain(x) for x in v]
                if isinstance(v, dbus.Boolean): return bool(v)
                if isinstance(v, (dbus.UInt32, dbus.Int32, dbus.UInt64, dbus.Int64)): return int(v)
                return str(v)
            bus.add_signal_receiver(record, dbus_interface='\(ServiceFixture.interface)', member_keyword='member')
            bus.add_signal_receiver(record, signal_name='PropertiesChanged', dbus_interface='org.freedesktop.DBus.Properties', member_keyword='member')
            class Patient:
                # Calls wait up to 120 s, not libdbus's 25: the first one starts the service by bus
                # activation, which a machine busy with the whole suite can make slow.
                def __init__(self, proxy): self.proxy = proxy
                def __getattr__(self, name):
                    method = getattr(self.proxy, name)
                    return lambda *a, **k: method(*a, timeout=k.pop('timeout', 120), **k)
            svc = Patient(dbus.Interface(bus.get_object('\(ServiceFixture.name)', '\(ServiceFixture.path)'), '\(ServiceFixture.interface)'))
            def act():
            \(actions.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                return False
            GLib.idle_add(act)
            GLib.timeout_add(240000, loop.quit)   # a ceiling: the loop ends when the signals came
            loop.run()
            print(json.dumps(seen))
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address], timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stderr)")
        let data = Data(r.stdout.utf8)
        return (try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
    }

    @Test func urlHandledAndURLFailedAreEmitted() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let signals = try await watch(f, count: 2, actions: """
            svc.OpenURL('todolist://add?task=milk')
            try:
                svc.OpenURL('nothing://x')
            except dbus.DBusException:
                pass
            """)
        let handled = signals.first { $0["member"] as? String == "URLHandled" }
        let args = handled?["args"] as? [Any] ?? []
        #expect(args.count == 4, "\(signals)")
        if args.count == 4 {
            #expect(args[0] as? String == "todolist://add?task=milk")
            #expect(args[1] as? String == "todolist")
            #expect(args[2] as? String == "todo.desktop")
            let details = args[3] as? [String: Any] ?? [:]
            #expect((details["source"] as? String)?.contains("python") == true, "\(details)")
            #expect((details["pid"] as? Int ?? 0) > 0)
            #expect(details["method"] as? String == "OpenURL")
        }
        let failed = signals.first { $0["member"] as? String == "URLFailed" }?["args"] as? [Any] ?? []
        #expect(failed.first as? String == "nothing://x", "\(signals)")
        #expect(failed.dropFirst().first as? String == ContractError.noHandler.description)
    }

    @Test func newEntryIsLiveAndAnnounced() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let program = try f.recorder("late")
        let entry = f.applications.appendingPathComponent("late.desktop").path
        let signals = try await watch(f, count: 2, actions: """
            assert not svc.CanOpenURL('latescheme://x')
            open('\(entry).tmp', 'w').write('[Desktop Entry]\\nType=Application\\nName=Late\\nExec=\(program) %u\\nMimeType=x-scheme-handler/latescheme;\\n')
            import os; os.rename('\(entry).tmp', '\(entry)')
            """)
        let changed = signals.first { $0["member"] as? String == "HandlersChanged" }?["args"] as? [Any]
        #expect((changed?.first as? [String])?.contains("latescheme") == true, "\(signals)")
        let props = signals.first { $0["member"] as? String == "PropertiesChanged" }?["args"] as? [Any] ?? []
        let schemes = (props.dropFirst().first as? [String: Any])?["Schemes"] as? [String]
        #expect(schemes?.contains("latescheme") == true, "\(signals)")
        let can = try await f.dbusSend("CanOpenURL", "string:latescheme://x")
        #expect(can.stdout.contains("boolean true"))
        let prop = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                        "org.freedesktop.DBus.Properties.Get", "string:\(ServiceFixture.interface)", "string:Schemes"])
        #expect(prop.stdout.contains("\"latescheme\""), "\(prop.stdout)")
    }

    @Test func dbusActivatableHandlerGetsOpen() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Activatable.desktop", "Name=Activatable\nDBusActivatable=true\nExec=/bin/false\nMimeType=x-scheme-handler/act;")
        let record = f.records.appendingPathComponent("open.json").path
        // A fake app that owns its desktop id's bus name and records its Open call.
        let app = try Tools.spawn([Tools.systemPython, "-c", """
            import sys, json, dbus, dbus.service
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            bus = dbus.bus.BusConnection(sys.argv[1])
            class App(dbus.service.Object):
                @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
                def Open(self, uris, platform):
                    json.dump({'uris': [str(u) for u in uris], 'platform': {str(k): str(v) for k, v in platform.items()}}, open(sys.argv[2], 'w'))
            name = dbus.service.BusName('org.example.Activatable', bus)
            App(bus, '/org/example/Activatable')
            GLib.MainLoop().run()
            """, f.bus.address, record])
        defer { app.terminate() }
        let client = try await Connection.connect(address: f.bus.address)
        defer { client.close() }
        #expect(await Tools.eventually {
            let r = try? await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner", [.string("org.example.Activatable")])
            return r?.first == .boolean(true)
        })
        let r = try await f.gdbus("OpenURLWithOptions", "act://hello world", "{'activation-token': <'tok-9'>, 'annotation': <'note'>}")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("'handler': <'org.example.Activatable.desktop'>"), "\(r.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any]
        #expect(json?["uris"] as? [String] == ["act://hello world"])
        let platform = json?["platform"] as? [String: String] ?? [:]
        #expect(platform["activation-token"] == "tok-9" && platform["desktop-startup-id"] == "tok-9", "\(platform)")
        #expect(platform["annotation"] == "note", "\(platform)")
        #expect(platform["source"]?.contains("gdbus") == true, "\(platform)")

        app.terminate()
        _ = await app.wait()
        let gone = try await f.dbusSend("OpenURL", "string:act://again")
        #expect(gone.stderr.contains(ContractError.launchFailed.description), "\(gone.stderr)")
    }
}
