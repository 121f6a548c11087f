import CX11
import DBusTestSupport
import Foundation

/// One test's world: a private Xvfb, an event recorder on it, a temp folder with the images, and
/// the processes started (all stopped at the end).
final class SplashFixture: @unchecked Sendable {
    let xvfb: Xvfb
    let recorder: XEventRecorder
    let directory: URL
    /// Gates the test opens to let a stand-in app go on (map its window, set its properties, exit).
    let gate: Gate
    private var children: [ChildProcess] = []

    init(width: Int = 640, height: Int = 480) throws {
        xvfb = try Xvfb(width: width, height: height)
        recorder = try XEventRecorder(xvfb)
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-splash-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        gate = try Gate(directory: directory.appendingPathComponent("gates"))
    }

    deinit {
        for child in children { child.terminate(grace: .seconds(1)) }
        recorder.stop()
        xvfb.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `image` into the temp folder and returns its path.
    func png(_ image: TestImages.Image, name: String = "launch.png") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try TestImages.write(image, to: path)
        return path
    }

    /// A started helper and where its stderr goes.
    struct Helper {
        let process: ChildProcess
        let stderr: URL
        let stdout: URL
        /// When it was started (monotonic ms).
        let startedAt: Double
        var log: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }
        var output: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }
    }

    /// The helper under test: `$SCHEMEBRIDGE_SPLASH` when set (e.g. a release build, for the
    /// measurements), else the debug build beside the tests.
    static func helperPath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["SCHEMEBRIDGE_SPLASH"], !path.isEmpty { return path }
        return try Built.executable("schemebridge-splash")
    }

    /// Starts `schemebridge-splash` with `arguments` (plus `--verbose`) on this server.
    func startHelper(_ arguments: [String], environment: [String: String]? = nil) throws -> Helper {
        let name = "helper-\(children.count)"
        let err = directory.appendingPathComponent("\(name).err"), out = directory.appendingPathComponent("\(name).out")
        var env = environment ?? ProcessInfo.processInfo.environment.merging(xvfb.clientEnvironment) { $1 }
        env.removeValue(forKey: "XAUTHORITY")
        let startedAt = nowMs()
        let process = try ChildProcess([try Self.helperPath()] + arguments + ["--verbose"],
                                       environment: env, stdout: out.path, stderr: err.path)
        children.append(process)
        return Helper(process: process, stderr: err, stdout: out, startedAt: startedAt)
    }

    /// Starts the stand-in handler app (`splash-test-window`) with `arguments`; its stdout
    /// ("mapped 0x…") goes to the returned file.
    func startWindow(_ arguments: [String]) throws -> (process: ChildProcess, stdout: URL) {
        let out = directory.appendingPathComponent("window-\(children.count).out")
        let env = ProcessInfo.processInfo.environment.merging(xvfb.clientEnvironment) { $1 }
        let process = try ChildProcess([try Built.executable("splash-test-window")] + arguments, environment: env, stdout: out.path,
                                       stderr: directory.appendingPathComponent("window-\(children.count).err").path)
        children.append(process)
        return (process, out)
    }

    /// Starts any program (e.g. `/bin/sleep`) as a handler process.
    func start(_ argv: [String]) throws -> ChildProcess {
        let env = ProcessInfo.processInfo.environment.merging(xvfb.clientEnvironment) { $1 }
        let process = try ChildProcess(argv, environment: env)
        children.append(process)
        return process
    }

    /// The helper's windows on screen now (mapped or not).
    func splashWindows() throws -> [TopLevelWindow] {
        try xvfb.topLevelWindows().filter { $0.resClass == "schemebridge-splash" }
    }

    /// Waits for the helper to exit; its status, or nil after `timeout`.
    func exitStatus(of helper: Helper, timeout: Duration = Tools.eventCeiling) async -> Int32? {
        let ok = await Tools.eventually(timeout: timeout) { !helper.process.isRunning }
        return ok ? helper.process.exitStatus : nil
    }

    /// Sends a startup-notification message over X from a connection of the test's own.
    func sendStartupMessage(_ text: String) throws {
        try xvfb.withConnection { dpy in
            let root = XDefaultRootWindow(dpy)
            var attributes = XSetWindowAttributes()
            attributes.override_redirect = 1
            let sender = XCreateWindow(dpy, root, -100, -100, 1, 1, 0, 0, UInt32(InputOnly), nil, UInt(CWOverrideRedirect), &attributes)
            let begin = XInternAtom(dpy, "_NET_STARTUP_INFO_BEGIN", 0), more = XInternAtom(dpy, "_NET_STARTUP_INFO", 0)
            let bytes = Array(text.utf8) + [0]
            var offset = 0
            while offset < bytes.count {
                var event = XEvent()
                event.xclient.type = ClientMessage
                event.xclient.window = sender
                event.xclient.message_type = offset == 0 ? begin : more
                event.xclient.format = 8
                withUnsafeMutableBytes(of: &event.xclient.data.b) { raw in
                    for k in 0..<20 { raw[k] = offset + k < bytes.count ? bytes[offset + k] : 0 }
                }
                _ = XSendEvent(dpy, root, 0, PropertyChangeMask, &event)
                offset += 20
            }
            _ = XSync(dpy, 0)
            _ = XDestroyWindow(dpy, sender)
            _ = XSync(dpy, 0)
        }
    }

    /// The direct children of `pid` (from /proc/PID/task/*/children).
    static func childrenOf(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [String] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").map(String.init)
        }
    }

    /// The "shown N ms" the helper logged when it took its splash down (its own clock), if it did.
    static func shownMilliseconds(_ log: String) -> Int? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("taken down:") }),
              let range = line.range(of: "(shown ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// The window id a `splash-test-window` printed ("mapped 0x…"), once it has.
    static func mappedWindow(_ stdout: URL) -> String? {
        let text = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("mapped ") }.map { String($0.dropFirst("mapped ".count)) }
    }

    /// ``mappedWindow(_:)`` of a window known to be mapped, waiting for its line: the window
    /// prints it on its MapNotify, which the helper gets at the same time — the helper can see
    /// the map, take the splash down and exit before the window has printed anything.
    static func mappedWindowPrinted(_ stdout: URL) async -> String? {
        var id: String?
        _ = await Tools.eventually { id = mappedWindow(stdout); return id != nil }
        return id
    }

    /// VmHWM (peak RSS) of `pid` in KiB.
    static func peakRSSKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}
