import Foundation
import Testing
@testable import SchemeBridgeCore

/// The service's rules without a bus: admission (allowed callers, rate, launches in flight),
/// query privacy, set-default eligibility, the launch context, and the reserved-scheme rules.
@Suite struct BrokerTests {
    /// A tree with a policy file, and a broker over it.
    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        func broker(config: String = "") -> Broker {
            if !config.isEmpty { tree.write(tree.configHome + "/schemebridge/config", config) }
            let registry = tree.registry()
            let store = PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories))
            return Broker(registry: registry, policy: store, ownDesktopIDs: ["io.example.Bridge.desktop"])
        }
        func request(_ url: String, app: String? = nil, bus: String = ":1.7", token: String? = nil, handler: DesktopID? = nil) throws(OpenFailure) -> OpenRequest {
            try OpenRequest(url: url, handler: handler, activationToken: token, caller: Caller(busName: bus, pid: 42, id: app.flatMap(CallerID.init)))
        }
    }

    func admit(_ broker: Broker, _ request: OpenRequest, splash: Bool = false) throws(OpenFailure) -> Admission {
        try broker.admit(request, searchPath: broker.registry.directories.executableSearchPath, sessionScale: 1, splashAvailable: splash)
    }

    func kind(_ body: () throws(OpenFailure) -> some Any) -> OpenFailure.Kind? {
        do { _ = try body(); return nil } catch { return error.kind }
    }

    @Test func allowedCallersAdmitOnlyMatchingApps() throws {
        let s = Setup()
        s.tree.entry(1, "bank.desktop", schemes: ["bank"], extra: "X-SchemeBridge-AllowedCallers=org.example.*;com.trusted.App")
        let broker = s.broker()
        #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("bank:pay", app: "org.evil.App")) } == .accessDenied)
        #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("bank:pay", app: nil)) } == .accessDenied, "an unidentified caller matches nothing")
        #expect(throws: Never.self) { try admit(broker, s.request("bank:pay", app: "org.example.Wallet")) }
        #expect(throws: Never.self) { try admit(broker, s.request("bank:pay", app: "com.trusted.App")) }
        do {
            _ = try admit(broker, s.request("bank:pay", app: "org.evil.App"))
        } catch {
            #expect(error.message.contains("org.example.*") && error.message.contains("org.evil.App"), "\(error.message)")
        }
    }

    @Test func rateIsPerCaller() throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        let broker = s.broker(config: "[Policy]\nMaxLaunchRate=0.01\nLaunchBurst=2\n")
        for _ in 0..<2 { _ = try admit(broker, s.request("todolist:x", app: "org.example.A")) }
        #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("todolist:x", app: "org.example.A", bus: ":1.99")) } == .rateLimited,
                "the limit follows the app, not its connection")
        #expect(throws: Never.self) { try admit(broker, s.request("todolist:x", app: "org.example.B")) }
    }

    @Test func launchesInFlightAreCappedAndGivenBack() throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        let broker = s.broker(config: "[Policy]\nMaxConcurrentLaunches=1\n")
        var first: Admission? = try admit(broker, s.request("todolist:1", app: "a"))
        #expect(broker.launchesInFlight == 1)
        do {
            _ = try admit(broker, s.request("todolist:2", app: "b"))
            Issue.record("a second launch was admitted while one is in flight")
        } catch {
            #expect(error.kind == .rateLimited && error.message.contains("in progress"), "\(error)")
        }
        #expect(first != nil)
        first = nil
        #expect(broker.launchesInFlight == 0, "the slot comes back with the admission")
        #expect(throws: Never.self) { try admit(broker, s.request("todolist:3", app: "b")) }
    }

    @Test func refusalsTakeNoSlotAndNoToken() throws {
        let s = Setup()
        s.tree.entry(1, "bank.desktop", schemes: ["bank"], extra: "X-SchemeBridge-AllowedCallers=org.ok")
        let broker = s.broker(config: "[Policy]\nMaxLaunchRate=0.01\nLaunchBurst=1\n")
        for _ in 0..<5 {
            #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("bank:x", app: "org.bad")) } == .accessDenied)
            #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("nothing:x", app: "org.ok")) } == .noHandler)
        }
        #expect(throws: Never.self) { try admit(broker, s.request("bank:x", app: "org.ok")) }
        #expect(broker.launchesInFlight == 0)
    }

    @Test func queryPrivacyAnswersOnlyDeclaredSchemes() throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        s.tree.entry(1, "bank.desktop", schemes: ["secretbank"])
        s.tree.entry(1, "org.example.Asker.desktop", exec: "/bin/true", extra: "X-SchemeBridge-QueriesSchemes=TodoList;")
        let open = s.broker()
        let asker = Caller(busName: ":1.1", id: "org.example.Asker")
        #expect(open.queryScope(for: asker) == .all && open.queryScope(for: nil) == .all, "privacy is off by default")
        #expect(try open.canOpen("secretbank:x", scope: .all))

        let broker = s.broker(config: "[Policy]\nQueryPrivacy=true\n")
        let scope = broker.queryScope(for: asker)
        #expect(scope == .only(["todolist"]))
        #expect(try broker.canOpen("todolist:x", scope: scope))
        #expect(try !broker.canOpen("secretbank:x", scope: scope), "not declared: false, as if not installed")
        #expect(try broker.handlers(forScheme: "secretbank", scope: scope).isEmpty)
        #expect(try broker.defaultHandler(forScheme: "secretbank", scope: scope) == nil)
        #expect(broker.schemes(scope: scope) == ["todolist"])
        #expect(broker.schemes() == ["secretbank", "todolist"])
        #expect(kind { () throws(OpenFailure) in try broker.canOpen("no scheme", scope: scope) } == .invalidURL, "malformed is an error, not false")
        // Unidentified, or identified without an entry: nothing.
        for nobody in [nil, Caller(busName: ":1.2", id: "/usr/bin/python3.11"), Caller(busName: ":1.3")] {
            let none = broker.queryScope(for: nobody)
            #expect(none == .only([]), "\(String(describing: nobody))")
            #expect(try !broker.canOpen("todolist:x", scope: none))
            #expect(broker.schemes(scope: none).isEmpty)
        }
    }

    @Test func setDefaultRefusesOurselvesReservedSchemesAndFile() throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        s.tree.entry(1, "io.example.Bridge.desktop", schemes: ["todolist"], exec: "schemebridge open %u")
        s.tree.entry(0, "evil.desktop", schemes: ["https"])
        let broker = s.broker()
        #expect(kind { () throws(OpenFailure) in try broker.checkSetDefault(scheme: "todolist", desktopID: "io.example.Bridge.desktop") } == .invalidHandler)
        #expect(kind { () throws(OpenFailure) in try broker.checkSetDefault(scheme: "https", desktopID: "evil.desktop") } == .reservedScheme)
        #expect(kind { () throws(OpenFailure) in try broker.checkSetDefault(scheme: "file", desktopID: "todo.desktop") } == .reservedScheme)
        #expect(kind { () throws(OpenFailure) in try broker.checkSetDefault(scheme: "not a scheme", desktopID: "todo.desktop") } == .invalidArgument)
        try broker.setDefault(scheme: "TodoList", desktopID: "todo.desktop")
        #expect(s.tree.read(s.tree.configHome + "/mimeapps.list")?.contains("x-scheme-handler/todolist=todo.desktop") == true)
    }

    @Test func oneLaunchContextGivesEnvironmentAndPlatformData() throws {
        let s = Setup()
        s.tree.entry(1, "org.example.Todo.desktop", schemes: ["todolist"])
        s.tree.writeBytes(s.tree.dataDirs[0] + "/launch-images/org.example.Todo/Default.png", [0x89, 0x50, 0x4E, 0x47])
        let broker = s.broker()
        let withToken = try admit(broker, s.request("todolist:x", app: "org.example.Cal", token: "tok-1"), splash: true)
        let command = LaunchCommand(argv: ["/bin/true"], workingDirectory: nil, environment: ["FROM_EXEC": "1"])
        let env = withToken.context.environment(base: ["PATH": "/bin", "SCHEMEBRIDGE_SOURCE": "stale"], command: command)
        #expect(env["SCHEMEBRIDGE_SOURCE"] == "org.example.Cal" && env["XDG_ACTIVATION_TOKEN"] == "tok-1"
                && env["DESKTOP_STARTUP_ID"] == "tok-1" && env["FROM_EXEC"] == "1" && env["PATH"] == "/bin", "\(env)")
        #expect(withToken.context.platformData == ["source": "org.example.Cal", "activation-token": "tok-1", "desktop-startup-id": "tok-1"])
        #expect(withToken.image?.hasSuffix("/Default.png") == true)

        let splash = try admit(broker, s.request("todolist:x", app: nil), splash: true)
        let id = try #require(splash.context.startupID, "an image shown as a splash needs a startup id")
        #expect(id.hasPrefix("schemebridge-") && splash.context.activationToken == nil && splash.context.source == nil)
        #expect(splash.context.platformData == ["desktop-startup-id": id])
        #expect(splash.context.environment == ["DESKTOP_STARTUP_ID": id])

        let noSplash = try admit(broker, s.request("todolist:x"), splash: false)
        #expect(noSplash.context.startupID == nil, "a notification needs no startup id")
        let imageOff = try broker.admit(OpenRequest(url: "todolist:x", launchImage: false, caller: Caller(busName: ":1.2")),
                                        searchPath: [], sessionScale: 1, splashAvailable: true)
        #expect(imageOff.image == nil && imageOff.context.startupID == nil)

        let base = LaunchContext.baseEnvironment(["DBUS_STARTER_ADDRESS": "x", "DBUS_STARTER_BUS_TYPE": "session", "DESKTOP_STARTUP_ID": "old",
                                                  "XDG_ACTIVATION_TOKEN": "old", "SCHEMEBRIDGE_SOURCE": "old", "HOME": "/h"], busAddress: "unix:path=/b")
        #expect(base == ["HOME": "/h", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/b"])
    }

    @Test func aMenuEditorCopyKeepsItsReservedSchemesButANewProgramDoesNot() throws {
        let s = Setup()
        s.tree.entry(1, "firefox-esr.desktop", schemes: ["http", "https"], exec: "/usr/lib/firefox-esr/firefox-esr %u")
        // The copy a menu editor writes: same id, same program, another name.
        s.tree.write(s.tree.apps(0) + "/firefox-esr.desktop",
                     XDGTree.desktopFile(name: "My Firefox", schemes: ["http", "https"], exec: "/usr/lib/firefox-esr/firefox-esr %u"))
        let broker = s.broker()
        #expect(try broker.defaultHandler(forScheme: "https") == "firefox-esr.desktop")
        #expect(try admit(broker, s.request("https://example.org")).plan.entry.name == "My Firefox")

        // A new program that lists https in the user's dir is not a candidate.
        s.tree.entry(0, "grabber.desktop", schemes: ["https", "todolist"], exec: "/bin/true %u")
        // A "copy" that runs another program is not a copy.
        let t = Setup()
        t.tree.entry(1, "firefox-esr.desktop", schemes: ["https"], exec: "/usr/lib/firefox-esr/firefox-esr %u")
        t.tree.write(t.tree.apps(0) + "/firefox-esr.desktop", XDGTree.desktopFile(schemes: ["https"], exec: "/tmp/evil %u"))
        let other = t.broker()
        #expect(try other.handlers(forScheme: "https").isEmpty)
        #expect(kind { () throws(OpenFailure) in try admit(other, t.request("https://example.org")) } == .reservedScheme)
        let fresh = s.broker()
        #expect(try fresh.handlers(forScheme: "https") == ["firefox-esr.desktop"])
        #expect(try fresh.handlers(forScheme: "todolist") == ["grabber.desktop"], "unreserved schemes stay open to new entries")
    }

    @Test func aDataDirTheUserCanWriteCannotClaimReservedSchemes() throws {
        // Like ~/.local/share/flatpak/exports/share put first in XDG_DATA_DIRS: a directory any
        // program of the user can write, whatever its name.
        let t = XDGTree(dataDirCount: 3)
        t.entry(1, "grabber.desktop", schemes: ["https", "todolist"], exec: "/bin/true %u")
        chmod(t.dataDirs[0], 0o777)
        t.entry(2, "other-grabber.desktop", schemes: ["mailto"], exec: "/bin/true %u")
        chown(t.apps(2), 65534, 65534)
        t.entry(3, "browser.desktop", schemes: ["https"], exec: "/bin/true %u")
        let registry = t.registry()
        let broker = Broker(registry: registry, policy: PolicyStore(path: t.configHome + "/none"), ownDesktopIDs: [])
        #expect(try broker.handlers(forScheme: "https") == ["browser.desktop"], "the writable dir's https entry is no candidate")
        #expect(try broker.handlers(forScheme: "mailto").isEmpty, "nor one in a directory another user owns")
        #expect(try broker.handlers(forScheme: "todolist") == ["grabber.desktop"], "unreserved schemes are open to every dir")
        #expect(kind { () throws(OpenFailure) in try broker.checkSetDefault(scheme: "https", desktopID: "grabber.desktop") } == .reservedScheme)
        #expect(!broker.router.trust.isTrusted(t.apps(1)) && !broker.router.trust.isTrusted(t.apps(2)) && broker.router.trust.isTrusted(t.apps(3)))
    }

    @Test func anAssociationListInAnApplicationsDirCannotPointAReservedSchemeElsewhere() throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "browser.desktop", schemes: ["https"])
        t.entry(1, "terminal.desktop", exec: "/bin/true")
        // ~/.local/share/applications/mimeapps.list: any program of the user can write it.
        t.list(t.apps(0) + "/mimeapps.list", defaults: ["https": "terminal.desktop", "todolist": "terminal.desktop"],
               added: ["https": "terminal.desktop", "todolist": "terminal.desktop"])
        let broker = Broker(registry: t.registry(), policy: PolicyStore(path: t.configHome + "/none"), ownDesktopIDs: [])
        #expect(try broker.defaultHandler(forScheme: "https") == "browser.desktop", "the list cannot re-point https")
        #expect(try broker.handlers(forScheme: "https") == ["browser.desktop"])
        #expect(try broker.defaultHandler(forScheme: "todolist") == "terminal.desktop", "other schemes follow the spec")
        // The user's own config still decides.
        t.list(t.configHome + "/mimeapps.list", defaults: ["https": "terminal.desktop"], added: ["https": "terminal.desktop"])
        let chosen = Broker(registry: t.registry(), policy: PolicyStore(path: t.configHome + "/none"), ownDesktopIDs: [])
        #expect(try chosen.defaultHandler(forScheme: "https") == "terminal.desktop")
    }

    @Test func aListInAWritableApplicationsDirCannotTakeTheBrowserOffAReservedScheme() throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "browser.desktop", schemes: ["https", "todolist"])
        t.entry(1, "other-browser.desktop", schemes: ["https"])
        // ~/.local/share/applications/mimeapps.list: any program of the user can write it.
        t.list(t.apps(0) + "/mimeapps.list", defaults: ["https": "other-browser.desktop"],
               removed: ["https": "browser.desktop;", "todolist": "browser.desktop;"])
        let registry = t.registry()
        #expect(registry.handlers(forScheme: "https") == ["browser.desktop", "other-browser.desktop"],
                "neither its removal nor its default counts for https")
        #expect(registry.handlers(forScheme: "todolist").isEmpty, "other schemes follow the spec")
        let broker = Broker(registry: registry, policy: PolicyStore(path: t.configHome + "/none"), ownDesktopIDs: [])
        #expect(try broker.defaultHandler(forScheme: "https") == "browser.desktop")
        #expect(try broker.handlers(forScheme: "HTTPS") == ["browser.desktop", "other-browser.desktop"])

        // Reserved schemes added in the config file count at once, on the same registry.
        t.write(t.configHome + "/schemebridge/config", "[Policy]\nExtraReservedSchemes=todolist;\n")
        let configured = Broker(registry: registry, policy: PolicyStore(path: t.configHome + "/schemebridge/config"), ownDesktopIDs: [])
        #expect(try configured.handlers(forScheme: "todolist") == ["browser.desktop"])
        #expect(registry.handlers(forScheme: "todolist") == ["browser.desktop"])

        // The user's own config lists still decide.
        t.list(t.configHome + "/mimeapps.list", defaults: ["https": "other-browser.desktop"], removed: ["todolist": "browser.desktop;"])
        let chosen = t.registry()
        #expect(chosen.handlers(forScheme: "https") == ["other-browser.desktop", "browser.desktop"])
        let chosenBroker = Broker(registry: chosen, policy: PolicyStore(path: t.configHome + "/schemebridge/config"), ownDesktopIDs: [])
        #expect(try chosenBroker.handlers(forScheme: "todolist").isEmpty, "a config-dir removal counts for a reserved scheme")
        t.list(t.configHome + "/mimeapps.list", removed: ["https": "browser.desktop;"])
        #expect(t.registry().handlers(forScheme: "https") == ["other-browser.desktop"])
    }

    @Test func aListInAProtectedApplicationsDirStillCountsForReservedSchemes() throws {
        let t = XDGTree(dataDirCount: 2)
        t.entry(2, "browser.desktop", schemes: ["https"])
        t.entry(2, "other-browser.desktop", schemes: ["https"])
        // The admin's list, in a directory only root can write (the test runs as root, see
        // aDataDirTheUserCanWriteCannotClaimReservedSchemes).
        t.list(t.apps(1) + "/mimeapps.list", defaults: ["https": "other-browser.desktop"], removed: ["https": "browser.desktop;"])
        let registry = t.registry()
        #expect(registry.trust.isTrusted(t.apps(1)))
        #expect(registry.handlers(forScheme: "https") == ["other-browser.desktop"])
        // The same directory, once other users can write it, counts for nothing.
        chmod(t.dataDirs[0], 0o777)
        #expect(t.registry().handlers(forScheme: "https") == ["browser.desktop", "other-browser.desktop"])
    }

    @Test func secureVariantsAreReservedToo() throws {
        let s = Setup()
        s.tree.entry(0, "cal.desktop", schemes: ["webcals", "sips", "todolists"])
        let broker = s.broker()
        #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("webcals://x")) } == .reservedScheme)
        #expect(kind { () throws(OpenFailure) in try admit(broker, s.request("sips:bob@example.org")) } == .reservedScheme)
        #expect(throws: Never.self) { try admit(broker, s.request("todolists:x")) }
    }

    @Test func terminalAppsFallBackToCommonTerminals() throws {
        let s = Setup()
        s.tree.entry(1, "tui.desktop", schemes: ["tui"], exec: "/bin/true %u", extra: "Terminal=true")
        let broker = s.broker()
        #expect(kind { () throws(OpenFailure) in try broker.admit(s.request("tui:x"), searchPath: [s.tree.bin], sessionScale: 1, splashAvailable: false) } == .launchFailed)
        s.tree.write(s.tree.bin + "/xterm", "#!/bin/sh\n")
        chmod(s.tree.bin + "/xterm", 0o755)
        let plan = try broker.admit(s.request("tui:x"), searchPath: [s.tree.bin], sessionScale: 1, splashAvailable: false).plan
        guard case .spawn(let commands) = plan.action else { Issue.record("not spawned"); return }
        #expect(commands.first?.argv == [s.tree.bin + "/xterm", "-e", "/bin/true", "tui:x"])
        s.tree.write(s.tree.bin + "/gnome-terminal", "#!/bin/sh\n")
        chmod(s.tree.bin + "/gnome-terminal", 0o755)
        let preferred = try broker.admit(s.request("tui:y"), searchPath: [s.tree.bin], sessionScale: 1, splashAvailable: false).plan
        guard case .spawn(let c2) = preferred.action else { return }
        #expect(c2.first?.argv.prefix(2) == [s.tree.bin + "/gnome-terminal", "--"])
    }
}
