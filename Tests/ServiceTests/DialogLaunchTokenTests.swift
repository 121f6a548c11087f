import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 39: the app chosen in the shipped dialog starts with a fresh activation token, never
/// the caller's — which the dialog's own window spent taking the focus (a Wayland token is good
/// once). The dialog obtains the new one when the user chooses and answers it
/// (`activation-token`); the service hands that one to the app.
///
/// - Wayland (sway 1.7 headless): the caller's window is focused and has a token from sway; it
///   opens `notes:` with `ask` and that token; the chooser takes the focus with it; a key press
///   (wtype's virtual keyboard) chooses Notes, whose program hands the token it was started with
///   to its running window, which activates with it. The token differs from the caller's, and
///   sway accepted it — it is one sway issued and nobody used: the handler's window has the focus
///   and sway logged no "Rejecting activate request" (it does for a used or forged token:
///   ``WaylandFocusTests``).
/// - X11 (Xvfb): the handler's `DESKTOP_STARTUP_ID` and `XDG_ACTIVATION_TOKEN` are a startup id
///   the dialog made, not the caller's, whose `_TIME` is the X server time of the key press that
///   chose (later than the caller's). That a window manager then gives the focus is not checked
///   (no window manager runs on the test's Xvfb).
@Suite struct DialogLaunchTokenTests {
    @Test func onWaylandTheAppChosenStartsWithAFreshTokenFromTheCompositor() async throws {
        let wtype = try Tools.path(of: "wtype")
        let s = try await WaylandFocusTests.scene(waylandDebug: true)
        defer { s.stop() }
        try FileManager.default.createSymbolicLink(atPath: s.f.bin.appendingPathComponent("schemebridge-dialog").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in s.sway.clientEnvironment { env[k] = v }
        env.removeValue(forKey: "DISPLAY")
        // The headless seat has no keyboard. A virtual one (wtype's) that stays gives the seat one,
        // and the dialog binds it (`wl_seat.get_keyboard` in its WAYLAND_DEBUG lines: at its start,
        // or when the seat gains the keyboard if it was started ahead before). Only then is a key
        // typed: a key sent before a client has bound the seat's new keyboard reaches no keyboard
        // of that client and is lost.
        let holder = try ChildProcess([wtype, "-s", "600000"], environment: env)
        defer { holder.terminate() }
        let opened = Task { try await s.f.gdbus("OpenURLWithOptions", "notes://chosen", "{'ask': <true>, 'activation-token': <'\(s.token)'>}") }
        // The chooser comes up and takes the focus with the caller's token (which is spent then).
        let focused = await Tools.eventually {
            (try? await DialogParentScreenTests.node(s.sway) { $0["focused"] as? Bool == true })?["name"] as? String == "Open With"
        }
        #expect(focused, "the chooser did not take the focus\n\(s.f.serviceLog.suffix(2000))\n\(s.sway.log.suffix(1500))")
        let bound = await Tools.eventually { s.f.serviceLog.contains(".get_keyboard(new id wl_keyboard@") }
        #expect(bound, "the dialog never bound the seat's keyboard\n\(s.f.serviceLog.suffix(3000))")
        // Return, from a second virtual keyboard that stays until the chooser has answered.
        let keyboard = try ChildProcess([wtype, "-k", "Return", "-s", "600000"], environment: env)
        defer { keyboard.terminate() }
        let r = try await opened.value
        #expect(r.status == 0 && r.stdout.contains("org.example.Notes.desktop"), "\(r.stdout)\(r.stderr)\n\(s.f.serviceLog.suffix(2000))")
        let handOvers = await s.handOvers(1)
        let token = try #require(handOvers.first.flatMap { $0.hasPrefix("activate-sent ") ? String($0.dropFirst("activate-sent ".count)) : nil },
                                 "the handler was started without a token: \(handOvers)\n\(s.windowLog)\n\(s.f.serviceLog.suffix(2000))")
        #expect(token != s.token, "the handler was handed the caller's spent token")
        #expect(await Tools.eventually { (try? await s.sway.focusedAppID()) == WaylandFocusTests.handlerApp },
                "the handler's window did not take the focus with \(token)\n\(s.sway.log.suffix(2000))")
        #expect(!s.sway.log.contains("Rejecting activate request"), "\(s.sway.log.suffix(2000))")
    }

    @Test func onX11TheAppChosenStartsWithAStartupIDOfTheKeyPressThatChose() async throws {
        let s = try DefaultChooserTests.Screen()
        defer { s.stop() }
        let opened = Task { try await s.f.gdbus("OpenURLWithOptions", "todo://chosen", "{'ask': <true>, 'activation-token': <'caller-token_TIME42'>}") }
        let w = try #require(try await s.dialog(), "no chooser came up\n\(s.f.serviceLog)")
        #expect(try s.x.textProperty("_NET_STARTUP_ID", of: w.id) == "caller-token_TIME42")
        try await s.type(["Return"], into: w)
        let r = try await opened.value
        #expect(r.status == 0 && r.stdout.contains("'handler': <'a.desktop'>"), "\(r.stdout)\(r.stderr)")
        let recorded = s.f.records.appendingPathComponent("a.env")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: recorded.path) })
        let lines = ((try? String(contentsOf: recorded, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let token = lines.first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) } ?? ""
        #expect(lines.contains("startup=\(token)"), "\(lines)")
        #expect(token != "caller-token_TIME42" && token.hasPrefix("schemebridge-dialog-") && token.contains("-a.desktop-"), "\(lines)")
        let time = token.range(of: "_TIME").flatMap { UInt64(token[$0.upperBound...]) }
        #expect((time ?? 0) > 42, "not the key press's X server time: \(token)")
    }
}
