import Glibc
import LinuxSystem
import Synchronization

/// A chooser program started before its question (the warm share sheet, `SheetSpare` in the
/// daemon): it is spawned as ``ChooserProcess`` spawns one (argv as given, never a shell, a new
/// session, stdin a socket, stdout a pipe) and waits on its stdin; ``ask(_:timeout:)`` writes the
/// question there and waits for the answer exactly as ``ChooserProcess/run(argv:environment:input:timeout:launcher:)``
/// does. Used once. A spare that is never asked is stopped with ``stop()`` (or ends by itself
/// when the service's end closes its stdin).
public final class PrestartedChooser: Sendable {
    private let run: ChooserProcess.Run
    private let asked = Atomic(false)
    /// The program's path, as started.
    public let program: String
    /// When it was started.
    public let started: ContinuousClock.Instant

    private init(run: ChooserProcess.Run, program: String) {
        self.run = run
        self.program = program
        self.started = .now
    }

    /// Starts `argv`; `onExit` hears its exit status (128+signal when killed) whenever it ends.
    public static func start(argv: [String], environment: [String: String], launcher: ProcessLauncher = ProcessLauncher(),
                             onExit: @escaping @Sendable (Int32) -> Void) throws(LaunchError) -> PrestartedChooser {
        switch ChooserProcess.spawn(argv: argv, environment: environment, launcher: launcher, onExit: onExit) {
        case .success(let run): return PrestartedChooser(run: run, program: argv.first ?? "")
        case .failure(let error): throw error
        }
    }

    /// Its pid (0 before the launcher reported it).
    public var pid: Int32 { run.status.pid }

    /// Whether it has ended (been reaped).
    public var hasExited: Bool { run.status.exited }

    /// Writes `input` to its stdin and returns once it has exited (stopped after `timeout`, as
    /// any chooser; a cancel of the calling task stops it). Nil when it was asked before or has
    /// ended already: then it never saw the question, and the caller starts a chooser the ordinary way.
    public func ask(_ input: [UInt8], timeout: Duration) async -> ChooserProcess.Outcome? {
        guard !hasExited, asked.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return nil }
        return await run.waitOnItsThread(input: input, timeout: timeout)
    }

    /// Stops a spare that was never asked (SIGTERM through its pidfd); its pipes close once it has ended.
    public func stop() {
        guard asked.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        run.stopUnwatched()
    }
}
