import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// App links through the one decision path, over a private bus (issue 41): a plain `OpenURL` of a
/// held link opens its app, of any other https link the browser; a caller's remembered choice and
/// `[Routes]` apply to https links; `ask` offers the link's app and the browser. With SchemeBridge
/// integrated for http and https, `xdg-open` of a link no app holds reaches the browser that was
/// the default before — its argv byte for byte as `gio launch` gives it, the activation token
/// passed on — and a held one its app; when nothing but SchemeBridge itself is left for https,
/// the answer is a clear error, no loop.
@Suite(.serialized) struct AppLinkOpeningTests {
    static let host = "todo.applinks.test"

    /// A browser (a system entry for http and https) and Todo (a system entry claiming `host`,
    /// named by the host's file), verified before the test goes on.
    static func world(_ f: ServiceFixture, _ server: AppLinkServiceTests.Server, browserExec: String? = nil, extraConfig: String = "") async throws {
        let browser = try f.recorder("browser")
        try f.entry("browser.desktop", "Name=Browser\nExec=\(browserExec ?? browser + " %u")\nMimeType=x-scheme-handler/http;x-scheme-handler/https;", system: true)
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nX-SchemeBridge-AppLinks=\(host);", system: true)
        try server.serve(host, apps: ["org.example.Todo"])
        try f.writeConfig(server.config([host]) + extraConfig)
        let verified = try await CLITests.cli(f, "links", "verify", host, "--json")
        #expect(verified.stdout.contains(#""apps":["org.example.Todo"]"#), "\(verified.stdout)\(verified.stderr)")
    }

    @Test func theOneDecisionPathOpensHeldLinksInTheirAppAndAppliesChoicesAndRoutes() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        let one = try f.pythonNamed("app-one"), two = try f.pythonNamed("app-two"), three = try f.pythonNamed("app-three")
        let chooser = try f.chooser("always-browser", "cat >/dev/null; printf 'browser.desktop\\talways\\n'")
        try await Self.world(f, server, extraConfig: "[Chooser]\nCommand=\(chooser)\n[Routes]\nhttps from \(three)=browser.desktop\n")

        // Plain opens: a held link in its app, any other https link in the browser.
        #expect(try await f.open("https://\(Self.host)/u/1", from: one, "plain") == "opened")
        #expect(await f.handled("todo", "https://\(Self.host)/u/1"))
        #expect(try await f.open("https://elsewhere.applinks.test/x", from: one, "plain") == "opened")
        #expect(await f.handled("browser", "https://elsewhere.applinks.test/x"))

        // A route sends the caller's https links to the browser, held or not.
        #expect(try await f.open("https://\(Self.host)/u/2", from: three, "plain") == "opened")
        #expect(await f.handled("browser", "https://\(Self.host)/u/2"))

        // `ask`: the link's app first, then the browser; "always" is remembered for that caller only.
        #expect(try await f.open("https://\(Self.host)/u/3", from: two) == "opened browser.desktop")
        let seen = f.chooserSaw("always-browser")
        let todoLine = try #require(seen.range(of: "org.example.Todo.desktop\tTodo"), "\(seen)")
        let browserLine = try #require(seen.range(of: "browser.desktop\tBrowser"), "\(seen)")
        #expect(todoLine.lowerBound < browserLine.lowerBound, "the link's app is offered first: \(seen)")
        #expect(try await f.open("https://\(Self.host)/u/4", from: two, "plain") == "opened")
        #expect(await f.handled("browser", "https://\(Self.host)/u/4"))
        #expect(f.chooserRuns("always-browser") == 1)
        #expect(try await f.open("https://\(Self.host)/u/5", from: one, "plain") == "opened")
        #expect(await f.handled("todo", "https://\(Self.host)/u/5"), "another caller keeps the link's app")
        let choices = try await CLITests.cli(f, "choices")
        #expect(choices.stdout == "\(two)\thttps\tbrowser.desktop\n", "\(choices.stdout)\(choices.stderr)")
    }

    /// The test's world as the desktop sees it: our shipped entry installed, `xdg-open` run by an
    /// app with the private bus, no desktop, a display set (xdg-open's generic path needs one).
    static func desktopEnvironment(_ f: ServiceFixture, token: String) -> [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "DBUS_STARTER_ADDRESS": "", "DBUS_STARTER_BUS_TYPE": "",
         "XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path,
         "XDG_CONFIG_HOME": f.configHome.path, "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path,
         "HOME": f.root.path, "PATH": Built.programs.path + ":/usr/bin:/bin",
         "XDG_CURRENT_DESKTOP": "", "DESKTOP_SESSION": "", "DISPLAY": ":999", "WAYLAND_DISPLAY": "", "BROWSER": "",
         "XDG_ACTIVATION_TOKEN": token, "DESKTOP_STARTUP_ID": "", "GIO_LAUNCHED_DESKTOP_FILE": ""]
    }

    static func installOurEntry(_ f: ServiceFixture) throws {
        let ours = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/\(Contract.ownDesktopID)"), encoding: .utf8)
        try ours.write(to: f.applications.appendingPathComponent(Contract.ownDesktopID), atomically: true, encoding: .utf8)
    }

    @Test func integratedLinksNoAppHoldsReachThePreviousBrowserUnchanged() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        try Self.installOurEntry(f)
        // A browser whose Exec has arguments of its own around the URL's field code.
        let browser = try f.recorder("browser")
        try await Self.world(f, server, browserExec: "\(browser) --new-window \"--profile=a b\" %u --")
        try """
            [Default Applications]
            x-scheme-handler/http=browser.desktop
            x-scheme-handler/https=browser.desktop

            """.write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let url = "https://elsewhere.applinks.test/a%20b/c?q='x'&y=$HOME;z=`1`#frag"

        // What the Exec rule gives, by GIO itself, before SchemeBridge is in the way.
        let env = Self.desktopEnvironment(f, token: "")
        let gio = try await Tools.run(["gio", "launch", f.systemData.appendingPathComponent("applications/browser.desktop").path, url], environment: env)
        #expect(gio.status == 0, "\(gio.stderr)")
        let argvFile = f.records.appendingPathComponent("browser.argv")
        #expect(await f.recordedArgv("browser") != nil)
        let expected = try Data(contentsOf: argvFile)
        try FileManager.default.removeItem(at: argvFile)

        let enable = try await CLITests.cli(f, "integrate", "enable", "--scheme", "http", "--scheme", "https")
        #expect(enable.stdout == "routed: http\nrouted: https\n", "\(enable.stdout)\(enable.stderr)")
        let xdgDefault = try await Tools.run(["xdg-mime", "query", "default", "x-scheme-handler/https"], environment: env)
        #expect(xdgDefault.stdout == Contract.ownDesktopID + "\n", "the desktop now hands https to SchemeBridge: \(xdgDefault.stdout)")

        // A link no app holds: through SchemeBridge to the previous browser, argv byte for byte, token passed on.
        let run = try await Tools.run(["xdg-open", url], environment: Self.desktopEnvironment(f, token: "token-to-pass-on"))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(f.serviceLog)")
        #expect(await f.recordedArgv("browser") != nil)
        let got = try Data(contentsOf: argvFile)
        #expect(got == expected, "through SchemeBridge: \(String(decoding: got, as: UTF8.self).debugDescription); gio launch: \(String(decoding: expected, as: UTF8.self).debugDescription)")
        let browserEnv = f.recordedEnv("browser")
        #expect(browserEnv.contains("token=token-to-pass-on\n") && browserEnv.contains("startup=token-to-pass-on\n"), "\(browserEnv)")
        // Plain http: never an app link, the browser.
        try FileManager.default.removeItem(at: argvFile)
        #expect(try await Tools.run(["xdg-open", "http://\(Self.host)/u/1"], environment: env).status == 0)
        #expect(await f.recordedArgv("browser") == ["--new-window", "--profile=a b", "http://\(Self.host)/u/1", "--"])

        // A held link: its app.
        let held = try await Tools.run(["xdg-open", "https://\(Self.host)/u/42"], environment: env)
        #expect(held.status == 0, "\(held.stderr)")
        #expect(await f.recordedArgv("todo") == ["https://\(Self.host)/u/42"])
    }

    /// `dbus-monitor` of the service's URLHandled and URLFailed signals, ready once it printed its preamble.
    static func signals(_ f: ServiceFixture) async throws -> (ChildProcess, () -> String) {
        let log = f.root.appendingPathComponent("signals.log")
        let monitor = try Tools.spawn(["dbus-monitor", "--address", f.bus.address, "type='signal',interface='\(ServiceFixture.interface)'"], stdout: log)
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(await Tools.eventually { text().contains("member=NameLost") }, "dbus-monitor never started")
        return (monitor, text)
    }

    /// The browser https links went to before goes away (uninstalled, or now an entry that runs
    /// `schemebridge open`), or the user's list names only SchemeBridge: one open, one clear error.
    @Test func nothingButSchemeBridgeLeftForHttpsIsAClearErrorNotALoop() async throws {
        for previous in ["uninstalled", "hands back", "ours only"] {
            let f = try ServiceFixture()
            defer { f.stop() }
            try Self.installOurEntry(f)
            let env = Self.desktopEnvironment(f, token: "")
            let browser = f.systemData.appendingPathComponent("applications/browser.desktop")
            if previous == "ours only" {
                try "[Default Applications]\nx-scheme-handler/https=\(Contract.ownDesktopID)\n"
                    .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
            } else {
                try f.entry("browser.desktop", "Name=Browser\nExec=\(try f.recorder("browser")) %u\nMimeType=x-scheme-handler/https;", system: true)
                try "[Default Applications]\nx-scheme-handler/https=browser.desktop\n"
                    .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
                let enable = try await CLITests.cli(f, "integrate", "enable", "--scheme", "https")
                #expect(enable.stdout == "routed: https\n", "\(previous): \(enable.stdout)\(enable.stderr)")
                if previous == "uninstalled" {
                    try FileManager.default.removeItem(at: browser)
                } else {
                    try "[Desktop Entry]\nType=Application\nName=Browser\nExec=schemebridge open %u\nMimeType=x-scheme-handler/https;\n"
                        .write(to: browser, atomically: true, encoding: .utf8)
                }
                // The service has seen the change (inotify) once the default is gone.
                #expect(await Tools.eventually { (try? await f.dbusSend("DefaultHandler", "string:https"))?.stdout.contains("string \"\"") == true },
                        "\(previous): the service never saw the browser go")
            }
            let (monitor, text) = try await Self.signals(f)
            defer { monitor.signal(SIGTERM) }
            let run = try await Tools.run(["xdg-open", "https://nobody.applinks.test/"], environment: env)
            #expect(run.status != 0, "\(previous): \(run.stdout)")
            #expect(run.stderr.contains("no browser other than SchemeBridge itself opens https links"), "\(previous): \(run.stderr)")
            // One open, one failure: SchemeBridge was not started again by its own answer.
            #expect(await Tools.eventually { text().components(separatedBy: "member=URLFailed").count == 2 }, "\(previous): \(text())")
            #expect(!text().contains("member=URLHandled"), "\(previous): \(text())")
            #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("browser.argv").path), "\(previous): nothing was started")
        }
    }
}
