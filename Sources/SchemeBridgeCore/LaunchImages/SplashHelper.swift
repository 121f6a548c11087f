import Glibc
import LinuxSystem

/// The launch-image helper, `schemebridge-splash`, a separate process (the service never links
/// or talks to X): found beside the service or on `PATH`, started for a splash (its arguments
/// from the admitted config: ``arguments(helper:image:pid:startupID:entry:config:)``), taken
/// down when a launch fails, and asked for the display's `Xft.dpi`.
public final class SplashHelper: Sendable {
    /// The helper's path; nil when it is not installed.
    public let path: String?
    let environment: [String: String]
    private let launcher = ProcessLauncher()
    /// The splash helpers running now.
    let helpers = HelperProcesses()
    /// Where a helper that failed is told (`notice`: a warning rather than a note).
    private let log: @Sendable (_ warning: Bool, _ message: String) -> Void

    /// `environment`: the helpers' base environment (the handlers').
    public init(environment: [String: String], log: @escaping @Sendable (_ warning: Bool, _ message: String) -> Void) {
        self.environment = environment
        self.log = log
        self.path = Self.findHelper(environment: environment)
    }

    /// The splash when there is an X display and the helper is installed; else a notification
    /// (``LaunchImageMode/choose(environment:helper:)``).
    public var mode: LaunchImageMode { LaunchImageMode.choose(environment: environment, helper: path) }

    /// The helper's arguments for a splash of `image` (the handler's `pid` when spawned).
    public static func arguments(helper: String, image: String, pid: Int32?, startupID: String, entry: DesktopEntry, config: PolicyConfig) -> [String] {
        var argv = [helper, "--image", image, "--startup-id", startupID,
                    "--show-delay-ms", String(config.splashShowDelay), "--min-show-ms", String(config.splashMinimumDuration),
                    "--timeout-ms", String(config.splashTimeout)]
        if let pid { argv += ["--pid", String(pid)] }
        if let wmClass = entry.startupWMClass, !wmClass.isEmpty { argv += ["--wm-class", wmClass] }
        return argv
    }

    /// Starts the splash helper for `image`; it takes itself down when the handler is up (or on
    /// SIGTERM). Returns the helper's pid; nil when it could not start, or when `[LaunchImages]
    /// MaxHelpers` helpers already run (the image is skipped, never the launch). The helper runs
    /// with the caller's `activationToken` (``ActivationToken/helperEnvironment(_:base:)``).
    public func showSplash(helper: String, image: String, pid: Int32?, startupID: String, activationToken: String?,
                    entry: DesktopEntry, config: PolicyConfig) -> Int32? {
        let argv = Self.arguments(helper: helper, image: image, pid: pid, startupID: startupID, entry: entry, config: config)
        let log = self.log
        do {
            let pid = try helpers.start(argv: argv, environment: ActivationToken.helperEnvironment(activationToken, base: environment),
                                        limit: config.splashMaxHelpers, onExit: { status in
                if status != 0 { log(true, "schemebridge-splash exited with status \(status) (launch image \(image) not shown)") }
            })
            if pid == nil { log(false, "\(config.splashMaxHelpers) launch images are already up (MaxHelpers); \(image) not shown") }
            return pid
        } catch {
            log(true, "cannot start schemebridge-splash: \(error.reason)")
            return nil
        }
    }

    /// Takes a splash down before its time (the launch failed): the helper unmaps it and exits
    /// on SIGTERM, sent through its pidfd (a helper that already ended is not signalled, nor is
    /// a process that has its pid now).
    public func takeDown(splash pid: Int32) {
        helpers.terminate(pid)
    }

    /// The X resource `Xft.dpi`, asked of the splash helper (the service never talks to X);
    /// nil without a display, a helper or the resource. The helper's answer (at most 2 s) is
    /// awaited on a thread of its own, never on one of the few threads every task shares: on a
    /// loaded machine a slow helper must not slow the calls being served.
    public func xftDPI() async -> Double? {
        guard case .splash(let helper) = mode else { return nil }
        return await withCheckedContinuation { continuation in
            Self.onOwnThread { continuation.resume(returning: self.probeXftDPI(helper: helper)) }
        }
    }

    /// Runs `body` on a new detached thread.
    private static func onOwnThread(_ body: @escaping @Sendable () -> Void) {
        if let thread = OSThread.start(name: "xft-dpi", body) { thread.detach() } else { body() }
    }

    /// Runs `schemebridge-splash --print-xft-dpi` and reads its answer; blocks up to 2 s.
    private func probeXftDPI(helper: String) -> Double? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let readEnd = FileDescriptor(owning: fds[0]), writeEnd = FileDescriptor(owning: fds[1])
        let spawned = (try? launcher.spawn(argv: [helper, "--print-xft-dpi"], environment: environment, stdout: writeEnd.rawValue)) != nil
        _ = consume writeEnd  // closed here: the end of the output is the helper's exit
        guard spawned else { return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        var pfd = pollfd(fd: readEnd.rawValue, events: Int16(POLLIN), revents: 0)
        while output.count < 64, poll(&pfd, 1, 2000) > 0 {
            let n = buffer.withUnsafeMutableBytes { read(pfd.fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            output += buffer[0..<n]
        }
        let text = String(decoding: output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        withExtendedLifetime(readEnd) {}
        return Double(text)
    }

    /// `schemebridge-splash` next to this executable, else on `PATH`.
    public static func findHelper(environment: [String: String]) -> String? {
        if let exe = CallerIdentity.executablePath(pid: getpid()), let slash = exe.lastIndex(of: "/") {
            let candidate = String(exe[..<slash]) + "/schemebridge-splash"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return ProgramLookup.find("schemebridge-splash", searchPath: ProgramLookup.searchPath(environment: environment))
    }
}
