import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Real Wayland focus (issue 26): sway 1.7 run headless implements `xdg_activation_v1`. The
/// handler app already has a window (not focused); the caller's window has the focus and gets a
/// real token for it from the compositor (`Clients/Wayland/wl-activation.c`, `token` mode); the
/// caller opens a URL with that token; SchemeBridge starts the handler's entry with it
/// (`XDG_ACTIVATION_TOKEN`), which hands it to the running instance — as a single-instance app
/// does — and the window activates with it. `swaymsg -t get_tree` says who has the focus.
///
/// What sway 1.7 checks (wlroots 0.15): a token must be one it issued and not used yet (a forged
/// or used token is rejected, "Rejecting activate request: unknown token"). It issues a token
/// without a seat serial (here the headless seat has no keyboard, so the caller's has none): it
/// does not check that the asking client has the focus. So "no token, no focus" shows what the
/// handler does with none (nothing to activate with), not a compositor rule; the forged and used
/// token cases are the compositor's rule and can fail.
@Suite struct WaylandFocusTests {
    static let handlerApp = "org.example.Notes", callerApp = "org.example.Caller"

    /// A compositor, the service, the handler's running window and the focused caller with its token.
    struct Scene {
        let sway: Sway
        let f: ServiceFixture
        let window: ChildProcess, caller: ChildProcess
        /// The running app's D-Bus side, when it is `DBusActivatable`.
        let app: ChildProcess?
        let windowOut: URL
        let token: String

        func stop() {
            app?.terminate()
            caller.terminate()
            window.terminate()
            f.stop()
            sway.stop()
        }

        var windowLog: String { (try? String(contentsOf: windowOut, encoding: .utf8)) ?? "" }

        /// Opens `url` as an app would (`OpenURLWithOptions`, with `token` when given).
        func open(_ url: String, token: String?) async throws -> ProcessResult {
            try await f.gdbus("OpenURLWithOptions", url, token.map { "{'activation-token': <'\($0)'>}" } ?? "@a{sv} {}")
        }

        /// Waits until the handler's window has dealt with the `n`th hand-over (a line
        /// "activate-sent TOKEN" or "no-token"; the compositor has handled the request by then).
        func handOvers(_ n: Int) async -> [String] {
            var lines: [String] = []
            _ = await Tools.eventually {
                lines = windowLog.split(separator: "\n").map(String.init).filter { $0.hasPrefix("activate-sent ") || $0 == "no-token" }
                return lines.count >= n
            }
            return lines
        }
    }

    /// `wl-activation`, built once per test process with wayland-scanner and gcc, kept as
    /// `.build/test-tools/wl-activation` (a build product, not a temporary file: nothing is left
    /// to remove when the tests end).
    static func client() async throws -> String { try await Builder.shared.path() }

    private actor Builder {
        static let shared = Builder()
        private var task: Task<String, Error>?
        func path() async throws -> String {
            if let task { return try await task.value }
            let task = Task { try await WaylandFocusTests.build() }
            self.task = task
            return try await task.value
        }
    }

    private static func build() async throws -> String {
        // Built in a folder of this process's own, then renamed into place: a test process
        // running the one built before keeps running it.
        let tools = Built.packageRoot.appendingPathComponent(".build/test-tools")
        let dir = tools.appendingPathComponent("wl-activation-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let protocols = "/usr/share/wayland-protocols"
        let source = Built.packageRoot.appendingPathComponent("Tests/ServiceTests/Clients/Wayland/wl-activation.c").path
        let script = """
            set -e
            cd "$1"
            for x in stable/xdg-shell/xdg-shell staging/xdg-activation/xdg-activation-v1 unstable/xdg-foreign/xdg-foreign-unstable-v2; do
                n=$(basename $x)
                wayland-scanner client-header \(protocols)/$x.xml $n-client-protocol.h
                wayland-scanner private-code \(protocols)/$x.xml $n-protocol.c
            done
            gcc -O1 -I. -o wl-activation "$2" xdg-shell-protocol.c xdg-activation-v1-protocol.c xdg-foreign-unstable-v2-protocol.c \
                $(pkg-config --cflags --libs wayland-client)
            """
        let r = try await Tools.run(["/bin/sh", "-c", script, "sh", dir.path, source])
        guard r.status == 0 else {
            throw ToolError("building wl-activation failed (apt-get install -y libwayland-dev wayland-protocols gcc): \(r.stdout)\(r.stderr)")
        }
        let client = tools.appendingPathComponent("wl-activation").path
        guard rename(dir.appendingPathComponent("wl-activation").path, client) == 0 else {
            throw ToolError("cannot move wl-activation to \(client): \(String(cString: strerror(errno)))")
        }
        return client
    }

    /// Sway, the service on its display, the handler's entry (`notes:`) whose program hands
    /// `$XDG_ACTIVATION_TOKEN` to the running window through its FIFO — or, `activatable`, a
    /// `DBusActivatable` entry whose running app (`Clients/Wayland/running-app.py`) hands it the
    /// `activation-token` of `Open`'s `platform_data` —, the handler's window (mapped first), then
    /// the caller's window, which takes the focus and gets a token.
    /// With `waylandDebug`, the service and what it starts (the dialog) run with
    /// `WAYLAND_DEBUG=client`: libwayland writes each request and event to the service's log, where a
    /// test can wait for the dialog to have bound a keyboard before it types.
    static func scene(activatable: Bool = false, waylandDebug: Bool = false) async throws -> Scene {
        let client = try await Self.client()
        let sway = try Sway()
        let f = try ServiceFixture(extraEnvironment: sway.clientEnvironment.merging(waylandDebug ? ["WAYLAND_DEBUG": "client"] : [:]) { $1 },
                                   unsetEnvironment: ["DISPLAY"])
        let fifo = f.root.appendingPathComponent("notes.fifo").path
        guard mkfifo(fifo, 0o600) == 0 else { throw ToolError("mkfifo \(fifo): errno \(errno)") }
        let program = f.bin.appendingPathComponent("notes-open").path
        try """
            #!/bin/sh
            printf '%s' "$1" > '\(f.records.path)/notes.url'
            printf '%s\\n' "$XDG_ACTIVATION_TOKEN" > '\(fifo)'
            """.write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        var app: ChildProcess?
        if activatable {
            try f.entry("\(handlerApp).desktop", "Name=Notes\nDBusActivatable=true\nExec=/bin/false %u\nMimeType=x-scheme-handler/notes;")
            app = try Tools.spawn(Clients.command("Wayland/running-app", [f.bus.address, fifo]))
            guard await ReplyTests.nameIsOwned(f, handlerApp) else {
                app?.terminate()
                throw ToolError("the running app never owned \(handlerApp)")
            }
        } else {
            try f.entry("\(handlerApp).desktop", "Name=Notes\nExec=\(program) %u\nMimeType=x-scheme-handler/notes;")
        }
        let windowOut = f.records.appendingPathComponent("window.out")
        var env = ProcessInfo.processInfo.environment
        for (k, v) in sway.clientEnvironment { env[k] = v }
        env.removeValue(forKey: "DISPLAY")
        let window = try ChildProcess([client, "window", handlerApp, fifo], environment: env, stdout: windowOut.path, stderr: windowOut.path)
        let mapped = await Tools.eventually {
            guard (try? String(contentsOf: windowOut, encoding: .utf8))?.contains("mapped") == true else { return false }
            return (try? await sway.focusedAppID()) == handlerApp
        }
        guard mapped else { throw ToolError("the handler's window never mapped: \((try? String(contentsOf: windowOut, encoding: .utf8)) ?? "")\n\(sway.log.suffix(1500))") }
        let callerOut = f.records.appendingPathComponent("caller.out")
        let caller = try ChildProcess([client, "token", callerApp], environment: env, stdout: callerOut.path, stderr: callerOut.path)
        var token: String?
        _ = await Tools.eventually {
            token = ((try? String(contentsOf: callerOut, encoding: .utf8)) ?? "").split(separator: "\n")
                .first { $0.hasPrefix("token ") }.map { String($0.dropFirst(6)) }
            return token != nil
        }
        let scene = Scene(sway: sway, f: f, window: window, caller: caller, app: app, windowOut: windowOut, token: token ?? "")
        guard token != nil, try await sway.focusedAppID() == callerApp else {
            scene.stop()
            throw ToolError("the caller got no token while focused: \((try? String(contentsOf: callerOut, encoding: .utf8)) ?? "")")
        }
        return scene
    }

    @Test func theCallersTokenGivesTheRunningHandlerTheFocus() async throws {
        let s = try await Self.scene()
        defer { s.stop() }
        let r = try await s.open("notes://today", token: s.token)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(await s.handOvers(1) == ["activate-sent \(s.token)"], "\(s.windowLog)\n\(s.f.serviceLog)")
        #expect(await Tools.eventually { (try? await s.sway.focusedAppID()) == Self.handlerApp }, "\(s.sway.log.suffix(1500))")
        #expect((try? String(contentsOf: s.f.records.appendingPathComponent("notes.url"), encoding: .utf8)) == "notes://today")
    }

    /// The same for a `DBusActivatable` handler that is running: the token reaches it as
    /// `activation-token` in `Open`'s `platform_data`.
    @Test func theTokenReachesARunningActivatableAppThroughPlatformData() async throws {
        let s = try await Self.scene(activatable: true)
        defer { s.stop() }
        let r = try await s.open("notes://over-dbus", token: s.token)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(await s.handOvers(1) == ["activate-sent \(s.token)"], "\(s.windowLog)\n\(s.f.serviceLog)")
        #expect(await Tools.eventually { (try? await s.sway.focusedAppID()) == Self.handlerApp }, "\(s.sway.log.suffix(1500))")
    }

    /// No token: the handler has nothing to activate with. A forged one: sway rejects it. The
    /// caller keeps the focus in both; then the real token moves it (the check can succeed).
    @Test func withoutATokenOrWithAForgedOneTheHandlerDoesNotTakeTheFocus() async throws {
        let s = try await Self.scene()
        defer { s.stop() }
        #expect(try await s.open("notes://no-token", token: nil).status == 0)
        #expect(await s.handOvers(1) == ["no-token"], "\(s.windowLog)")
        #expect(try await s.sway.focusedAppID() == Self.callerApp)
        #expect(try await s.open("notes://forged", token: "forged-0123456789abcdef").status == 0)
        #expect(await s.handOvers(2).last == "activate-sent forged-0123456789abcdef", "\(s.windowLog)")
        #expect(try await s.sway.focusedAppID() == Self.callerApp)
        #expect(s.sway.log.contains("Rejecting activate request: unknown token"))
        #expect(try await s.open("notes://real", token: s.token).status == 0)
        #expect(await s.handOvers(3).last == "activate-sent \(s.token)")
        #expect(await Tools.eventually { (try? await s.sway.focusedAppID()) == Self.handlerApp })
    }

    /// A token is good once: the compositor rejects a used one, and SchemeBridge does
    /// not hand a token it gave one launch to another (issue 26 x-callback item): the second
    /// launch gets none. Seen with sway: the focus stays with the caller.
    @Test func aUsedTokenIsNotHandedOnAgain() async throws {
        let s = try await Self.scene()
        defer { s.stop() }
        #expect(try await s.open("notes://first", token: s.token).status == 0)
        #expect(await s.handOvers(1) == ["activate-sent \(s.token)"], "\(s.windowLog)")
        #expect(await Tools.eventually { (try? await s.sway.focusedAppID()) == Self.handlerApp })
        // The user goes back to the caller, which opens again with the token it already gave.
        #expect(try await s.sway.swaymsg(["[app_id=\(Self.callerApp)] focus"]).status == 0)
        #expect(await Tools.eventually { (try? await s.sway.focusedAppID()) == Self.callerApp })
        #expect(try await s.open("notes://second", token: s.token).status == 0)
        #expect(await s.handOvers(2).last == "no-token", "the used token was handed on again: \(s.windowLog)")
        #expect(try await s.sway.focusedAppID() == Self.callerApp)
    }
}
