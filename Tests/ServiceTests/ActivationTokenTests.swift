import Foundation
import Glibc
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Activation tokens both ways (issue 26, item 4), each hop as a user's programs see it: the
/// caller's token reaches the handler, the handler's token comes back in the `Response` and with
/// the x-callback URL it opens, and the windows SchemeBridge shows for the caller (the chooser,
/// the launch-image splash) start with the caller's token.
@Suite struct ActivationTokenTests {
    /// What `Clients/ActivationToken/record-launch.py` recorded in `records/<name>.json`, once it
    /// has (it renames the file into place).
    static func launchRecord(_ f: ServiceFixture, _ name: String) async -> [String: String] {
        let file = f.records.appendingPathComponent("\(name).json")
        _ = await Tools.eventually { FileManager.default.fileExists(atPath: file.path) }
        let data = (try? Data(contentsOf: file)) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
    }

    /// The caller's entry (`org.example.Caller`, scheme `callerapp`), whose program records its
    /// launch (`Clients/ActivationToken/record-launch.py`) in `records/caller.json`; that path.
    static func installRecordingCaller(_ f: ServiceFixture) throws -> String {
        let python = try f.pythonNamed("caller-app")  // the caller's own program (XCallbackTests.callerCommand)
        let record = f.records.appendingPathComponent("caller.json").path
        try f.entry("org.example.Caller.desktop", "Name=Caller\nExec=\(python) \(Clients.path("ActivationToken/record-launch")) \(record) %u\n"
                    + "MimeType=x-scheme-handler/callerapp;", system: true)
        return record
    }

    /// The first line of each `KEY=VALUE` in `/proc/PID/environ` for the keys asked.
    static func environment(of pid: Int32, _ keys: [String]) -> [String: String] {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
        var found: [String: String] = [:]
        for entry in data.split(separator: 0).map({ String(decoding: $0, as: UTF8.self) }) {
            guard let eq = entry.firstIndex(of: "=") else { continue }
            let key = String(entry[..<eq])
            if keys.contains(key) { found[key] = String(entry[entry.index(after: eq)...]) }
        }
        return found
    }

    @Test func theHandlersTokenReachesTheCallerInTheResponse() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The handler records the token it was started with, tries two bad tokens (each refused,
        // the request still waiting), then answers with a fresh token of its own through the CLI.
        let handler = try ReplyTests.handler(f, "todo", """
            printf '%s|%s' "$XDG_ACTIVATION_TOKEN" "$DESKTOP_STARTUP_ID" > '\(f.records.path)/todo.env'
            gdbus call --session --dest \(ServiceFixture.name) --object-path \(ServiceFixture.path) \
              --method \(ServiceFixture.interface).Reply "$SCHEMEBRIDGE_REPLY_TOKEN" 0 "{'activation-token': <uint32 5>}" \
              > /dev/null 2> '\(f.records.path)/todo.wrong-type'
            "$SB" reply "activation-token=$(printf 'two\\nlines')" 2> '\(f.records.path)/todo.control'
            echo "exit $?" >> '\(f.records.path)/todo.control'
            XDG_ACTIVATION_TOKEN=fresh-from-the-handler exec "$SB" reply title=milk
            """)
        try f.entry("todo.desktop", "Name=Todo\nExec=\(handler) %u\nMimeType=x-scheme-handler/todolist;")
        var env = Clients.serviceNames
        env["SB_ACTIVATION_TOKEN"] = "token-of-the-caller"
        let r = try await Tools.run(Clients.command("Reply/caller", [f.bus.address, "todolist://add?task=milk", "", ""]), environment: env)
        let all = ReplyTests.responses(r)
        #expect(all.count == 1 && all.first?["code"] as? Int == 0, "\(r.stdout)\(r.stderr)")
        #expect(all.first?["results"] as? [String: String] == ["title": "milk", Response.Key.activationToken: "fresh-from-the-handler"], "\(r.stdout)")
        // The caller's token reached the handler (both variables).
        let handed = try String(contentsOf: f.records.appendingPathComponent("todo.env"), encoding: .utf8)
        #expect(handed == "token-of-the-caller|token-of-the-caller", "\(handed)")
        // A token that is not a string, or holds control characters, is InvalidArgs.
        let wrongType = try String(contentsOf: f.records.appendingPathComponent("todo.wrong-type"), encoding: .utf8)
        #expect(wrongType.contains("org.freedesktop.DBus.Error.InvalidArgs") && wrongType.contains("activation-token must be a string"), "\(wrongType)")
        let control = try String(contentsOf: f.records.appendingPathComponent("todo.control"), encoding: .utf8)
        #expect(control.contains("control characters") && !control.contains("exit 0"), "\(control)")
    }

    /// A handler that answers with the token it was started with (its environment passed on by
    /// `schemebridge reply`) hands back nothing: that token was the caller's own, and is used.
    @Test func theTokenTheHandlerWasStartedWithIsNotHandedBack() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let handler = try ReplyTests.handler(f, "todo", "exec \"$SB\" reply done=1")
        try f.entry("todo.desktop", "Name=Todo\nExec=\(handler) %u\nMimeType=x-scheme-handler/todolist;")
        var env = Clients.serviceNames
        env["SB_ACTIVATION_TOKEN"] = "token-of-the-caller"
        let r = try await Tools.run(Clients.command("Reply/caller", [f.bus.address, "todolist://stale", "", ""]), environment: env)
        #expect(ReplyTests.responses(r).first?["results"] as? [String: String] == ["done": "1"], "\(r.stdout)\(r.stderr)")
    }

    /// `schemebridge reply` takes the token from the environment it was given, and an explicit
    /// `activation-token=` wins over it; without either the results have no token.
    @Test func theCLIRepliesWithTheTokenOfItsEnvironment() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let handler = try ReplyTests.handler(f, "todo", """
            case "$1" in
              *explicit*) exec env XDG_ACTIVATION_TOKEN=from-env "$SB" reply activation-token=given ;;
              *startup*) exec env -u XDG_ACTIVATION_TOKEN DESKTOP_STARTUP_ID=x11-startup-id_TIME42 "$SB" reply ;;
              *) exec env -u XDG_ACTIVATION_TOKEN -u DESKTOP_STARTUP_ID "$SB" reply done=1 ;;
            esac
            """)
        try f.entry("todo.desktop", "Name=Todo\nExec=\(handler) %u\nMimeType=x-scheme-handler/todolist;")
        let cases: [(String, [String: String])] = [
            ("todolist://explicit", [Response.Key.activationToken: "given"]),
            ("todolist://startup", [Response.Key.activationToken: "x11-startup-id_TIME42"]),
            ("todolist://none", ["done": "1"]),
        ]
        for (url, expected) in cases {
            let r = try await ReplyTests.runCaller(f, url)
            #expect(ReplyTests.responses(r).first?["results"] as? [String: String] == expected, "\(url): \(r.stdout)\(r.stderr)")
        }
    }

    /// The handler opens its x-success callback with a token of its own: the caller's entry is
    /// started with it, as `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID`.
    @Test func theCallbackLaunchCarriesTheHandlersToken() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        _ = try Self.installRecordingCaller(f)
        try XCallbackTests.installHandler(f, first: "export XDG_ACTIVATION_TOKEN=token-of-the-handler DESKTOP_STARTUP_ID=", result: "ok")
        let r = try await XCallbackTests.callerOpensHandlerWithCallback(f)
        #expect(r.stdout.hasPrefix("True"), "\(r.stdout)\(r.stderr)")
        let got = await Self.launchRecord(f, "caller")
        #expect(got["url"] == "callerapp://done?result=ok", "\(got)")
        #expect(got["XDG_ACTIVATION_TOKEN"] == "token-of-the-handler" && got["DESKTOP_STARTUP_ID"] == "token-of-the-handler", "\(got)")
    }

    /// The handler was started with the caller's token and opens its x-success callback without
    /// getting one of its own (`schemebridge open` takes `$XDG_ACTIVATION_TOKEN` from the
    /// environment it inherited): that token was used when the handler's window came up, so the
    /// callback launch is not handed it again — it gets no token (a compositor would refuse a
    /// used one: WaylandFocusTests). Before, the caller's token went on as given.
    @Test func theCallersUsedTokenDoesNotGoOnWithTheCallback() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let record = try Self.installRecordingCaller(f)
        try XCallbackTests.installHandler(f, first: "printf '%s' \"$XDG_ACTIVATION_TOKEN\" > '\(f.records.path)/handler.token'", result: "ok")
        let r = try await XCallbackTests.callerOpensHandlerWithCallback(f, activationToken: "token-of-the-caller")
        #expect(r.stdout.hasPrefix("True"), "\(r.stdout)\(r.stderr)")
        let got = await Self.launchRecord(f, "caller")
        #expect((try? String(contentsOf: f.records.appendingPathComponent("handler.token"), encoding: .utf8)) == "token-of-the-caller",
                "the handler is started with the caller's token")
        #expect(got["url"] == "callerapp://done?result=ok", "\(got)")
        #expect(got["XDG_ACTIVATION_TOKEN"] == nil && got["DESKTOP_STARTUP_ID"] == nil, "the used token went on: \(got)\n\(f.serviceLog)")
        // A token of its own (what a handler gets from its compositor) still goes on.
        try FileManager.default.removeItem(atPath: record)
        try XCallbackTests.installHandler(f, first: "export XDG_ACTIVATION_TOKEN=fresh-token-of-the-handler", result: "again")
        #expect(try await XCallbackTests.callerOpensHandlerWithCallback(f, activationToken: "another-token-of-the-caller").stdout.hasPrefix("True"))
        let again = await Self.launchRecord(f, "caller")
        #expect(again["url"] == "callerapp://done?result=again" && again["XDG_ACTIVATION_TOKEN"] == "fresh-token-of-the-handler", "\(again)")
    }

    /// The same when the caller's entry is `DBusActivatable`: its `Open` call carries the
    /// handler's token as `activation-token` and `desktop-startup-id` in `platform_data`.
    @Test func theCallbackToAnActivatableCallerCarriesTheTokenInPlatformData() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let python = try f.pythonNamed("caller-app")  // the caller's own program (XCallbackTests.callerCommand)
        // The caller is its own python (its Exec names it); its callbacks reach it over D-Bus.
        try f.entry("org.example.Activatable.desktop", "Name=Caller\nDBusActivatable=true\nExec=\(python) -c pass %u\n"
                    + "MimeType=x-scheme-handler/callerapp;", system: true)
        let record = f.records.appendingPathComponent("open.json")
        let app = try Tools.spawn(Clients.command("Signal/activatable-app", [f.bus.address, record.path]))
        defer { app.terminate() }
        #expect(await ReplyTests.nameIsOwned(f, "org.example.Activatable"), "the activatable app never started")
        try XCallbackTests.installHandler(f, first: "export XDG_ACTIVATION_TOKEN=token-over-dbus", result: "ok")
        let r = try await XCallbackTests.callerOpensHandlerWithCallback(f)
        #expect(r.stdout.hasPrefix("True"), "\(r.stdout)\(r.stderr)")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: record.path) }, "the callback never came back")
        let json = (try? JSONSerialization.jsonObject(with: Data(contentsOf: record))) as? [String: Any]
        #expect(json?["uris"] as? [String] == ["callerapp://done?result=ok"], "\(String(describing: json))")
        let platform = json?["platform"] as? [String: String] ?? [:]
        #expect(platform["activation-token"] == "token-over-dbus" && platform["desktop-startup-id"] == "token-over-dbus", "\(platform)")
    }

    /// A chooser program (`[Chooser] Command=`) and a `Chooser1` client are handed the caller's token.
    @Test func theChooserGetsTheCallersToken() async throws {
        // The session's environment has tokens of its own (as a bus activation environment
        // might): they belong to no caller, and no chooser gets them.
        let f = try ServiceFixture(extraEnvironment: ["XDG_ACTIVATION_TOKEN": "stale-session-token", "DESKTOP_STARTUP_ID": "stale-session-id"])
        defer { f.stop() }
        try f.installTodoHandlers()
        let tokens = f.records.appendingPathComponent("picker.tokens").path
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("picker", "printf '%s|%s\\n' \"$XDG_ACTIVATION_TOKEN\" \"$DESKTOP_STARTUP_ID\" >> '\(tokens)'; echo b.desktop"))\n")
        let r = try await f.gdbus("OpenURLWithOptions", "todo://pick", "{'ask': <true>, 'activation-token': <'token-for-the-chooser'>}")
        #expect(r.status == 0 && r.stdout.contains("'handler': <'b.desktop'>"), "\(r.stdout)\(r.stderr)")
        #expect(await f.handled("b", "todo://pick"))
        // Without a token the chooser has none (the service's own are not handed on).
        let plain = try await f.gdbus("OpenURLWithOptions", "todo://plain", "{'ask': <true>}")
        #expect(plain.status == 0, "\(plain.stdout)\(plain.stderr)")
        #expect(try String(contentsOfFile: tokens, encoding: .utf8) == "token-for-the-chooser|token-for-the-chooser\n|\n")

        // A Chooser1 client on the bus finds it in the context.
        try f.writeConfig("[Chooser]\nBus=true\n")
        let client = try await ChooserTests.chooser1Client(f, answers: ["b.desktop"])
        defer { client.signal(SIGTERM) }
        var log = ""
        #expect(try await Tools.eventually {
            _ = try await f.gdbus("OpenURLWithOptions", "todo://bus", "{'ask': <true>, 'activation-token': <'token-for-the-bus-chooser'>}")
            log = ChooserTests.chooser1Log(f)
            return !log.isEmpty
        }, "the Chooser1 client was never asked")
        #expect(log.contains(#""activation-token": "token-for-the-bus-chooser""#), "\(log)")
    }

    /// The launch-image splash runs with the caller's token (and shows for it: `--startup-id`).
    @Test func theSplashGetsTheCallersToken() async throws {
        let s = try SplashServiceTests.setUp(config: SplashServiceTests.noTimeout)
        defer { s.f.release("todo"); s.f.stop(); s.x.stop() }
        let r = try await s.f.gdbus("OpenURLWithOptions", "todolist://token", "{'activation-token': <'token-for-the-splash'>}")
        #expect(r.status == 0 && r.stdout.contains("launch-image"), "\(r.stdout)\(r.stderr)")
        var helpers: [Int32] = []
        #expect(await Tools.eventually { helpers = await s.f.splashHelpers(); return !helpers.isEmpty }, "no splash helper ran")
        let env = helpers.first.map { Self.environment(of: $0, ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"]) } ?? [:]
        #expect(env == ["XDG_ACTIVATION_TOKEN": "token-for-the-splash", "DESKTOP_STARTUP_ID": "token-for-the-splash"], "\(env)")
        let argv = helpers.first.map { pid in
            ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        } ?? []
        #expect(argv.firstIndex(of: "--startup-id").map { argv[$0 + 1] } == "token-for-the-splash", "\(argv)")
        #expect(s.f.recordedEnv("todo").contains("token=token-for-the-splash\n"), "\(s.f.recordedEnv("todo"))")
    }
}
