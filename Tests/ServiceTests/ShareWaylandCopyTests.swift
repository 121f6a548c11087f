import Foundation
import Testing
import DBusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// "Copy" under Wayland: with `WAYLAND_DISPLAY` and no `DISPLAY`, the service hands the text to
/// `wl-copy --type text/plain`, and `wl-paste` (another client of the compositor) reads it back.
@Suite struct ShareWaylandCopyTests {
    /// weston on a private Xvfb through its x11 backend, which gives it a seat (a keyboard and a
    /// pointer): the clipboard belongs to a seat, and under weston's headless backend, which has
    /// none, `wl-copy` and `wl-paste` stop with "Missing a seat". Its clients get only the Wayland
    /// socket (``environment``); the Xvfb is weston's output, not theirs.
    final class SeatedWeston {
        let x: Xvfb
        let runtime: URL
        let socket = "wl-seat"
        private let process: ChildProcess

        init() throws {
            let weston = try Tools.path(of: "weston")
            x = try Xvfb(width: 640, height: 480)
            runtime = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-wl-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var env = ProcessInfo.processInfo.environment
            env["WAYLAND_DISPLAY"] = nil
            env["DISPLAY"] = x.display
            env["XDG_RUNTIME_DIR"] = runtime.path
            let log = runtime.appendingPathComponent("weston.log")
            process = try ChildProcess([weston, "--backend=x11-backend.so", "--use-pixman", "--width=640", "--height=480", "--no-config",
                                        "--socket=\(socket)", "--log=\(log.path)"],
                                       environment: env, stderr: runtime.appendingPathComponent("weston.out").path)
            // Ready once its shell is launched (after the seat and the socket exist).
            let deadline = ContinuousClock.now + Tools.eventCeiling
            while ContinuousClock.now < deadline, process.isRunning,
                  !((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("weston-desktop-shell") {
                usleep(20_000)
            }
            guard FileManager.default.fileExists(atPath: runtime.appendingPathComponent(socket).path) else {
                stop()
                throw ToolError("weston (x11 backend) did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
        }

        /// A Wayland client's environment: the runtime directory and the socket, no `DISPLAY`.
        var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime.path, "WAYLAND_DISPLAY": socket] }

        func stop() {
            process.terminate()
            x.stop()
            try? FileManager.default.removeItem(at: runtime)
        }
    }

    @Test func copyUnderWaylandGoesThroughWlCopy() async throws {
        _ = try Tools.path(of: "wl-copy")
        let wlPaste = try Tools.path(of: "wl-paste")
        let compositor = try SeatedWeston()
        defer { compositor.stop() }
        let f = try ServiceFixture(extraEnvironment: compositor.environment, unsetEnvironment: ["DISPLAY"])
        defer { f.stop() }
        let targets = try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                           "--method", "io.github.schemebridge.Share1.ShareTargets", "['text/plain']"])
        #expect(targets.stdout.contains("'builtin:copy'"), "\(targets.stdout)\(targets.stderr)\n\(f.serviceLog)")
        let out = try await ShareTests.share(f, #"[{"text": "copied under Wayland ✓"}]"#, #"{"target": "builtin:copy"}"#)
        let response = try #require(ShareTests.responses(out).first, "\(out)\n\(f.serviceLog)")
        #expect(response["code"] as? Int == 0 && (response["results"] as? [String: String])?["target"] == "builtin:copy", "\(out)\n\(f.serviceLog)")
        // The service ran under Wayland alone.
        let service = try #require(await f.servicePID())
        #expect(ActivationTokenTests.environment(of: service, ["DISPLAY", "WAYLAND_DISPLAY"]) == ["WAYLAND_DISPLAY": compositor.socket])
        let types = try await Tools.run([wlPaste, "--list-types"], environment: compositor.environment)
        #expect(types.stdout.split(separator: "\n").contains("text/plain"), "\(types.stdout)\(types.stderr)")
        let pasted = try await Tools.run([wlPaste, "--no-newline", "--type", "text/plain"], environment: compositor.environment)
        #expect(pasted.stdout == "copied under Wayland ✓", "\(pasted.stdout)\(pasted.stderr)")
    }
}
