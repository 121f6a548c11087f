import Foundation
import Glibc
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// `$XDG_CONFIG_HOME/schemebridge/config`, read live: query privacy, extra reserved schemes,
/// a cap on launches in flight.
@Suite struct ConfigTests {

    @Test func queryPrivacyAnswersOnlyDeclaredSchemes() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;", system: true)
        try f.entry("secret.desktop", "Name=Secret\nExec=/bin/true %u\nMimeType=x-scheme-handler/secretbank;", system: true)
        // The python client is identified as org.example.Asker: its entry runs the same executable
        // (a python of its own: the system's is every script's, never an entry's; issue 37).
        let python = try f.pythonNamed("asker-python")
        try f.entry("org.example.Asker.desktop", "Name=Asker\nExec=\(python) -c pass\nX-SchemeBridge-QueriesSchemes=todolist;", system: true)
        try f.writeConfig("[Policy]\nQueryPrivacy=true\n")
        // The very first call of a new caller is answered for that caller (no warm-up): the
        // service identifies it before answering.
        let asker = try await Tools.run([python] + Clients.command("Config/privacy-queries", [f.bus.address]).dropFirst(), environment: Clients.serviceNames)
        #expect(asker.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "False True [] - ['todolist']", "\(asker.stdout)\(asker.stderr)")
        // A caller with no entry of its own (dbus-send) declares nothing, so learns nothing.
        let plain = try await f.dbusSend("CanOpenURL", "string:secretbank:x")
        #expect(plain.stdout.contains("boolean false"), "\(plain.stdout)")
        let handlers = try await f.dbusSend("HandlersForScheme", "string:secretbank")
        #expect(!handlers.stdout.contains("secret.desktop"), "\(handlers.stdout)")
        let schemes = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                           "org.freedesktop.DBus.Properties.Get", "string:\(ServiceFixture.interface)", "string:Schemes"])
        #expect(!schemes.stdout.contains("secretbank") && !schemes.stdout.contains("todolist"), "\(schemes.stdout)")
        // Opening still works for everyone: privacy is about what may be asked, not what may be opened.
        let open = try await f.dbusSend("OpenURL", "string:secretbank:x")
        #expect(open.stdout.contains("boolean true"), "\(open.stdout)\(open.stderr)")
    }

    @Test func hostileConfigValuesAndFilesNeitherTrapNorBlock() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        // Values that used to trap a conversion (crash at start, so bus activation crash-looped).
        try f.writeConfig("[Policy]\nMaxConcurrentLaunches=1e19\nLaunchBurst=-5\nMaxLaunchRate=nan\n[LaunchImages]\nTimeout=99999999999999999999\n")
        let opened = try await f.dbusSend("OpenURL", "string:todolist://after-bad-config")
        #expect(opened.stdout.contains("boolean true"), "\(opened.stdout)\(opened.stderr)")
        #expect(await f.recordedArgv("todo") == ["todolist://after-bad-config"])
        // A FIFO in the config file's place: nothing may block on it (the loop thread reads the
        // config when it changes).
        let config = f.configHome.appendingPathComponent("schemebridge/config")
        try FileManager.default.removeItem(at: config)
        #expect(mkfifo(config.path, 0o600) == 0)
        for i in 0..<3 {
            let r = try await f.dbusSend("CanOpenURL", "string:todolist:\(i)")
            #expect(r.stdout.contains("boolean true"), "\(r.stdout)\(r.stderr)")
            try await Task.sleep(for: .milliseconds(250))   // past the 200 ms re-check interval
        }
    }

    @Test func extraReservedSchemesApplyLive() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("bankapp.desktop", "Name=Bank\nExec=\(try f.recorder("bank")) %u\nMimeType=x-scheme-handler/bank;")
        let before = try await f.dbusSend("CanOpenURL", "string:bank://x")
        #expect(before.stdout.contains("boolean true"))
        try f.writeConfig("# site policy\n[Policy]\nExtraReservedSchemes=bank;\nUnknownKey=1\n")
        let reserved = await Tools.eventually {
            ((try? await f.dbusSend("OpenURL", "string:bank://x"))?.stderr.contains(ContractError.reservedScheme.description)) == true
        }
        #expect(reserved)
        try FileManager.default.removeItem(at: f.configHome.appendingPathComponent("schemebridge/config"))
        let back = await Tools.eventually {
            ((try? await f.dbusSend("OpenURL", "string:bank://y"))?.stdout.contains("boolean true")) == true
        }
        #expect(back)
    }

    @Test func launchesInFlightAreCapped() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Policy]\nMaxConcurrentLaunches=1\n")
        try f.entry("org.example.Slow.desktop", "Name=Slow\nDBusActivatable=true\nMimeType=x-scheme-handler/slow;")
        // The app's Open says it started (a file), then returns only once the test opens the gate.
        let started = f.root.appendingPathComponent("open-started").path
        let app = try Tools.spawn(Clients.command("Config/slow-app", [f.bus.address, started, f.gate.file("open")]))
        defer { app.terminate() }
        _ = await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus.NameHasOwner", "string:org.example.Slow"])
            return r?.stdout.contains("boolean true") == true
        }
        _ = try await f.dbusSend("CanOpenURL", "string:slow:warm")
        async let first = f.dbusSend("OpenURL", "string:slow://1")
        // The first launch is in flight (the app is inside Open) until the gate opens.
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: started) }, "the first Open never reached the app")
        let second = try await f.dbusSend("OpenURL", "string:slow://2")
        f.release("open")
        #expect(second.stderr.contains(ContractError.rateLimited.description) && second.stderr.contains("in progress"), "\(second.stderr)")
        let firstResult = try await first
        #expect(firstResult.stdout.contains("boolean true"), "\(firstResult.stderr)")
    }
}
