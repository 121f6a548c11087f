import CX11
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private Wayland compositor for one test: weston 10's headless backend (pixman renderer, so
/// it really composites) with Xwayland, in a runtime directory of its own, stopped by its pid on
/// ``stop()`` or deinit (Xwayland goes with it). Wayland clients get ``socket`` (`WAYLAND_DISPLAY`)
/// in ``runtimeDirectory`` (`XDG_RUNTIME_DIR`); X11 clients get ``display`` (`DISPLAY`, Xwayland,
/// which weston starts on the first X connection). The user's session is never used.
/// (From `shared/recipes/wayland-headless.sh`; needs `weston`, `xwayland`.)
public final class Weston: @unchecked Sendable {
    /// `XDG_RUNTIME_DIR` of the compositor and its clients (mode 0700).
    public let runtimeDirectory: URL
    /// The Wayland socket's name in ``runtimeDirectory`` (`WAYLAND_DISPLAY`).
    public let socket = "wl-test"
    /// Xwayland's display, e.g. `:4` (the first free number; weston names it in its log).
    public let display: String
    /// Output size.
    public let width: Int, height: Int
    private let process: ChildProcess

    /// Starts weston and waits (up to `timeout`) until its socket exists and it has named the
    /// X display it listens on.
    public init(width: Int = 800, height: Int = 600, timeout: Duration = Tools.eventCeiling) throws {
        self.width = width
        self.height = height
        // An X error (BadWindow of a window that went) must not end the test process.
        _ = XSetErrorHandler { _, _ in 0 }
        let exe = try Tools.path(of: "weston")
        _ = try Tools.path(of: "Xwayland")
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-weston-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runtimeDirectory = dir
        var env = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"] { env.removeValue(forKey: key) }
        env["XDG_RUNTIME_DIR"] = dir.path
        let log = dir.appendingPathComponent("weston.log")
        // weston 10 knows "headless-backend.so" (not "headless"); pixman makes it draw; --debug
        // lets weston-screenshooter take the output; --idle-time=0: never idle (after its default
        // 300 s without input it would blank the output and stop repainting, and a screenshot,
        // taken at a repaint, would never come).
        process = try ChildProcess([exe, "--backend=headless-backend.so", "--use-pixman", "--width=\(width)", "--height=\(height)",
                                    "--xwayland", "--debug", "--no-config", "--idle-time=0", "--socket=\(socket)", "--log=\(log.path)"],
                                   environment: env, stdout: dir.appendingPathComponent("weston.out").path,
                                   stderr: dir.appendingPathComponent("weston.out").path)
        let deadline = ContinuousClock.now + timeout
        var number: String?
        while ContinuousClock.now < deadline, process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on display :") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if !digits.isEmpty, FileManager.default.fileExists(atPath: dir.appendingPathComponent(socket).path) {
                    number = String(digits)
                    break
                }
            }
            usleep(20_000)
        }
        guard let number else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            process.stopBlocking()
            try? FileManager.default.removeItem(at: dir)
            throw ToolError("weston did not start with Xwayland (apt-get install -y weston xwayland): \(text.suffix(800))")
        }
        display = ":" + number
    }

    /// What a client of this compositor needs: `XDG_RUNTIME_DIR`, `WAYLAND_DISPLAY` and, for X11
    /// clients through Xwayland, `DISPLAY`.
    public var clientEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": socket, "DISPLAY": display]
    }

    /// The compositor's process id.
    public var pid: Int32 { process.pid }

    /// What weston logged.
    public var log: String { (try? String(contentsOf: runtimeDirectory.appendingPathComponent("weston.log"), encoding: .utf8)) ?? "" }

    /// Stops weston (SIGTERM, by its pid; SIGKILL if it has not ended after 10 s), which ends
    /// its Xwayland, then removes the runtime directory.
    public func stop() {
        process.stopBlocking()
        try? FileManager.default.removeItem(at: runtimeDirectory)
    }

    deinit { stop() }

    /// The whole output as the compositor shows it (shell, windows, Xwayland's included),
    /// through the weston_screenshooter protocol: `weston-screenshooter` writes a PNG, which is
    /// moved to `destination`.
    public func screenshot(to destination: URL) async throws {
        let work = runtimeDirectory.appendingPathComponent("shots-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let r = try await Tools.run(["/bin/sh", "-c", "cd \"$1\" && exec weston-screenshooter", "sh", work.path],
                                    environment: ["XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": socket])
        let shot = try FileManager.default.contentsOfDirectory(atPath: work.path).first { $0.hasSuffix(".png") }
        guard r.status == 0, let shot else { throw ToolError("weston-screenshooter failed (\(r.status)): \(r.stdout)\(r.stderr)") }
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: work.appendingPathComponent(shot), to: destination)
    }

    /// Runs `body` with a fresh connection to Xwayland, closed afterwards.
    public func withX<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        guard let dpy = XOpenDisplay(display) else { throw ToolError("cannot open Xwayland's display \(display)") }
        defer { XCloseDisplay(dpy) }
        return try body(dpy)
    }

    /// The mapped X11 windows anywhere in Xwayland's tree whose WM_CLASS (name or class)
    /// contains `text` (case-insensitively), with their geometry relative to their parent (a
    /// window manager's frame).
    public func xWindows(classContaining text: String) throws -> [TopLevelWindow] {
        try withX { dpy in
            var found: [TopLevelWindow] = []
            func visit(_ w: Window, depth: Int) {
                var attributes = XWindowAttributes()
                guard XGetWindowAttributes(dpy, w, &attributes) != 0 else { return }
                var hint = XClassHint()
                if XGetClassHint(dpy, w, &hint) != 0 {
                    var name = "", cls = ""
                    if let n = hint.res_name { name = String(cString: n); XFree(n) }
                    if let c = hint.res_class { cls = String(cString: c); XFree(c) }
                    if (name + "\n" + cls).lowercased().contains(text.lowercased()), attributes.map_state == IsViewable {
                        found.append(TopLevelWindow(id: UInt(w), resName: name, resClass: cls, isMapped: true, x: Int(attributes.x),
                                                    y: Int(attributes.y), width: Int(attributes.width), height: Int(attributes.height)))
                    }
                }
                guard depth < 4 else { return }
                var rootReturn: Window = 0, parent: Window = 0
                var list: UnsafeMutablePointer<Window>?
                var count: UInt32 = 0
                guard XQueryTree(dpy, w, &rootReturn, &parent, &list, &count) != 0 else { return }
                defer { if let list { XFree(list) } }
                for i in 0..<Int(count) { visit(list![i], depth: depth + 1) }
            }
            visit(XDefaultRootWindow(dpy), depth: 0)
            return found
        }
    }

    /// The contents of X11 window `window` (`xwd -id`; the root of rootless Xwayland cannot be read).
    public func xWindowImage(_ window: TopLevelWindow) throws -> Screenshot {
        try withX { dpy in try Screenshot.capture(dpy, Window(window.id), x: 0, y: 0, width: window.width, height: window.height) }
    }
}
