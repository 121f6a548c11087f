import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Reserved schemes, per-handler caller restrictions and launch rate limits, end to end.
@Suite struct PolicyTests {

    @Test func userDataDirEntryCannotHijackHTTPS() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("browser.desktop", "Name=Browser\nExec=\(try f.recorder("browser")) %u\nMimeType=x-scheme-handler/https;", system: true)
        try f.entry("evil.desktop", "Name=Evil\nExec=\(try f.recorder("evil")) %u\nMimeType=x-scheme-handler/https;x-scheme-handler/evilscheme;")
        // Even a default in the data dir's own mimeapps.list does not make it a candidate.
        try "[Default Applications]\nx-scheme-handler/https=evil.desktop\n".write(to: f.applications.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let handlers = try await f.dbusSend("HandlersForScheme", "string:https")
        #expect(handlers.stdout.contains("browser.desktop") && !handlers.stdout.contains("evil.desktop"), "\(handlers.stdout)\(handlers.stderr)")
        _ = try await f.dbusSend("OpenURL", "string:https://bank.example/login")
        #expect(await f.recordedArgv("browser") == ["https://bank.example/login"])
        let forced = try await f.gdbus("OpenURLWithOptions", "https://bank.example", "{'handler': <'evil.desktop'>}")
        #expect(forced.stderr.contains(ContractError.reservedScheme.description) && forced.stderr.contains("mimeapps.list"), "\(forced.stderr)")
        let set = try await f.dbusSend("SetDefaultHandler", "string:https", "string:evil.desktop")
        #expect(set.stderr.contains(ContractError.reservedScheme.description), "\(set.stderr)")
        // Its own scheme is fine.
        let own = try await f.dbusSend("CanOpenURL", "string:evilscheme://x")
        #expect(own.stdout.contains("boolean true"))
        // file: is never routed.
        let file = try await f.dbusSend("OpenURL", "string:file:///etc/passwd")
        #expect(file.stderr.contains(ContractError.reservedScheme.description) && file.stderr.contains("xdg-open"), "\(file.stderr)")
        #expect(FileManager.default.fileExists(atPath: f.records.appendingPathComponent("evil.argv").path) == false)
    }

    @Test func aRemovalInTheUserDataDirCannotTakeTheBrowserOffHTTPS() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("browser.desktop", "Name=Browser\nExec=\(try f.recorder("browser")) %u\nMimeType=x-scheme-handler/https;x-scheme-handler/gopher;", system: true)
        // ~/.local/share/applications/mimeapps.list: any program of the user can write it.
        try "[Removed Associations]\nx-scheme-handler/https=browser.desktop;\nx-scheme-handler/gopher=browser.desktop;\n"
            .write(to: f.applications.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let handlers = try await f.dbusSend("HandlersForScheme", "string:https")
        #expect(handlers.stdout.contains("browser.desktop"), "\(handlers.stdout)\(handlers.stderr)")
        let opened = try await f.dbusSend("OpenURL", "string:https://bank.example/login")
        #expect(opened.stdout.contains("boolean true"), "\(opened.stdout)\(opened.stderr)")
        #expect(await f.recordedArgv("browser") == ["https://bank.example/login"])
        // Other schemes follow the spec: the removal counts.
        let gopher = try await f.dbusSend("CanOpenURL", "string:gopher://example.org")
        #expect(gopher.stdout.contains("boolean false"), "\(gopher.stdout)\(gopher.stderr)")
        // The user's own config still decides, live.
        try "[Removed Associations]\nx-scheme-handler/https=browser.desktop;\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        #expect(await Tools.eventually {
            ((try? await f.dbusSend("CanOpenURL", "string:https://example.org"))?.stdout.contains("boolean false")) == true
        })
    }

    @Test func menuEditorCopyOfTheBrowserStillHandlesHTTPS() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let browser = try f.recorder("browser")
        try f.entry("firefox-esr.desktop", "Name=Firefox ESR\nExec=\(browser) %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;", system: true)
        // What a menu editor (alacarte, menulibre) writes: the same id and program, a new name.
        try f.entry("firefox-esr.desktop", "Name=My Browser\nExec=\(browser) %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;")
        // A new program listing https in the same directory gets nothing.
        try f.entry("grabber.desktop", "Name=Grabber\nExec=\(try f.recorder("grabber")) %u\nMimeType=x-scheme-handler/https;")
        let handlers = try await f.dbusSend("HandlersForScheme", "string:https")
        #expect(handlers.stdout.contains("firefox-esr.desktop") && !handlers.stdout.contains("grabber.desktop"), "\(handlers.stdout)\(handlers.stderr)")
        let opened = try await f.gdbus("OpenURLWithOptions", "https://example.org/", "{}")
        #expect(opened.stdout.contains("'handler': <'firefox-esr.desktop'>"), "\(opened.stdout)\(opened.stderr)")
        #expect(await f.recordedArgv("browser") == ["https://example.org/"])
        let forced = try await f.gdbus("OpenURLWithOptions", "https://example.org/", "{'handler': <'grabber.desktop'>}")
        #expect(forced.stderr.contains(ContractError.reservedScheme.description), "\(forced.stderr)")
    }

    @Test func onlyHijackerInstalledIsReservedNotMissing() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("evil.desktop", "Name=Evil\nExec=\(try f.recorder("evil")) %u\nMimeType=x-scheme-handler/mailto;")
        let r = try await f.dbusSend("OpenURL", "string:mailto:a@b.example")
        #expect(r.stderr.contains(ContractError.reservedScheme.description), "\(r.stderr)")
        // Chosen explicitly in the user's config, it is a candidate.
        try "[Default Applications]\nx-scheme-handler/mailto=evil.desktop\n".write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        #expect(await Tools.eventually {
            ((try? await f.dbusSend("CanOpenURL", "string:mailto:a@b.example"))?.stdout.contains("boolean true")) == true
        })
    }

    @Test func allowedCallersAreEnforced() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("vault.desktop", "Name=Vault\nExec=\(try f.recorder("vault")) %u\nMimeType=x-scheme-handler/vault;\nX-SchemeBridge-AllowedCallers=org.example.Trusted;/usr/bin/gdbus")
        let denied = try await f.dbusSend("OpenURL", "string:vault://open")
        #expect(denied.stderr.contains(ContractError.accessDenied.description) && denied.stderr.contains("/usr/bin/dbus-send"), "\(denied.stderr)")
        let allowed = try await f.gdbus("OpenURL", "vault://open")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(await f.recordedArgv("vault") == ["vault://open"])
    }

    @Test func launchRateIsLimitedPerCaller() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("fast.desktop", "Name=Fast\nExec=/bin/true %u\nMimeType=x-scheme-handler/fast;")
        var env = ["XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path,
                   "XDG_CONFIG_HOME": f.configHome.path, "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path]
        env["HOME"] = f.root.path
        let daemon = try Tools.spawn([try Built.executable("schemebridged"), "--address", f.bus.address, "--max-launch-rate", "0.01", "--launch-burst", "3"], environment: env)
        defer { daemon.terminate() }
        let client = try await Connection.connect(address: f.bus.address)
        defer { client.close() }
        #expect(await Tools.eventually {
            let r = try? await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner", [.string(ServiceFixture.name)])
            return r?.first == .boolean(true)
        })
        var outcomes: [String] = []
        for i in 0..<5 {
            do {
                _ = try await client.call(destination: BusName(ServiceFixture.name), path: ObjectPath(ServiceFixture.path),
                                          interface: InterfaceName(ServiceFixture.interface), member: "OpenURL", [.string("fast://\(i)")])
                outcomes.append("ok")
            } catch {
                outcomes.append(((error as? DBusError)?.name.rawValue ?? "\(error)").replacingOccurrences(of: Contract.errorPrefix, with: ""))
            }
        }
        #expect(outcomes == ["ok", "ok", "ok", "RateLimited", "RateLimited"])
    }
}
