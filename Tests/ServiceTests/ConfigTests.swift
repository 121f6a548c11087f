import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// `$XDG_CONFIG_HOME/schemebridge/config`, read live: query privacy, extra reserved schemes,
/// a cap on launches in flight.
@Suite struct ConfigTests {

    func writeConfig(_ f: ServiceFixture, _ text: String) throws {
        let dir = f.configHome.appendingPathComponent("schemebridge")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try text.write(to: dir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    @Test func queryPrivacyAnswersOnlyDeclaredSchemes() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;", system: true)
        try f.entry("secret.desktop", "Name=Secret\nExec=/bin/true %u\nMimeType=x-scheme-handler/secretbank;", system: true)
        // The python client is identified as org.example.Asker: its entry runs the same executable.
        let python = (try? FileManager.default.destinationOfSymbolicLink(atPath: Tools.systemPython)).map { "/usr/bin/" + $0 } ?? Tools.systemPython
        try f.entry("org.example.Asker.desktop", "Name=Asker\nExec=\(python) -c pass\nX-SchemeBridge-QueriesSchemes=todolist;", system: true)
        try writeConfig(f, "[Policy]\nQueryPrivacy=true\n")
        let script = """
            import sys, time, dbus
            bus = dbus.bus.BusConnection(sys.argv[1])
            \(ServiceFixture.pythonNames)
            svc = dbus.Interface(bus.get_object(N, O), N)
            svc.CanOpenURL('todolist:warmup')
            time.sleep(0.3)   # identification of a new caller runs in the background
            print(bool(svc.CanOpenURL('todolist:x')), bool(svc.CanOpenURL('secretbank:x')))
            """
        let asker = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address])
        #expect(asker.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "True False", "\(asker.stdout)\(asker.stderr)")
        // An unidentified caller (no entry runs dbus-send) gets the plain answer.
        let plain = try await f.dbusSend("CanOpenURL", "string:secretbank:x")
        #expect(plain.stdout.contains("boolean true"), "\(plain.stdout)")
    }

    @Test func extraReservedSchemesApplyLive() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("bankapp.desktop", "Name=Bank\nExec=\(try f.recorder("bank")) %u\nMimeType=x-scheme-handler/bank;")
        let before = try await f.dbusSend("CanOpenURL", "string:bank://x")
        #expect(before.stdout.contains("boolean true"))
        try writeConfig(f, "# site policy\n[Policy]\nExtraReservedSchemes=bank;\nUnknownKey=1\n")
        let reserved = await Tools.eventually(timeout: .seconds(3)) {
            ((try? await f.dbusSend("OpenURL", "string:bank://x"))?.stderr.contains(ContractError.reservedScheme.description)) == true
        }
        #expect(reserved)
        try FileManager.default.removeItem(at: f.configHome.appendingPathComponent("schemebridge/config"))
        let back = await Tools.eventually(timeout: .seconds(3)) {
            ((try? await f.dbusSend("OpenURL", "string:bank://y"))?.stdout.contains("boolean true")) == true
        }
        #expect(back)
    }

    @Test func launchesInFlightAreCapped() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try writeConfig(f, "[Policy]\nMaxConcurrentLaunches=1\n")
        try f.entry("org.example.Slow.desktop", "Name=Slow\nDBusActivatable=true\nMimeType=x-scheme-handler/slow;")
        let app = try Tools.spawn([Tools.systemPython, "-c", """
            import sys, time, dbus, dbus.service
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            bus = dbus.bus.BusConnection(sys.argv[1])
            class App(dbus.service.Object):
                @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
                def Open(self, uris, platform):
                    time.sleep(1.0)
            name = dbus.service.BusName('org.example.Slow', bus)
            App(bus, '/org/example/Slow')
            GLib.MainLoop().run()
            """, f.bus.address])
        defer { app.terminate() }
        _ = await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus.NameHasOwner", "string:org.example.Slow"])
            return r?.stdout.contains("boolean true") == true
        }
        _ = try await f.dbusSend("CanOpenURL", "string:slow:warm")
        async let first = f.dbusSend("OpenURL", "string:slow://1")
        try await Task.sleep(for: .milliseconds(300))
        let second = try await f.dbusSend("OpenURL", "string:slow://2")
        #expect(second.stderr.contains(ContractError.rateLimited.description) && second.stderr.contains("in progress"), "\(second.stderr)")
        let firstResult = try await first
        #expect(firstResult.stdout.contains("boolean true"), "\(firstResult.stderr)")
    }
}
