import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, a clean signal mask and default signal
/// handlers. (Foundation's `Process` hands children the spawning thread's mask, which
/// under Swift concurrency blocks nearly every signal: such a child ignores SIGTERM.)
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    /// Starts `argv[0]` (absolute path) with `environment` as its whole environment.
    /// Standard input, output and error go to the given paths (default `/dev/null`);
    /// `stdoutFD` passes an open descriptor instead of a path for standard output.
    public init(
        _ argv: [String], environment: [String: String],
        stdin: String = "/dev/null", stdout: String = "/dev/null", stderr: String = "/dev/null",
        stdoutFD: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        if let fd = stdoutFD {
            posix_spawn_file_actions_adddup2(&actions, fd, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in cArgs { free(p) }
            for p in cEnv { free(p) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, argv[0], &actions, &attr, cArgs, cEnv)
        guard rc == 0 else { throw ToolError("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        pid = child
        let spawned = child
        // Reap on a thread of our own, so no Swift concurrency thread ever blocks.
        Thread.detachNewThread { [self] in
            var st: Int32 = 0
            while waitpid(spawned, &st, 0) < 0 && errno == EINTR {}
            let code: Int32 = (st & 0x7F) == 0 ? (st >> 8) & 0xFF : 128 + (st & 0x7F)
            lock.lock()
            status = code
            let ws = waiters
            waiters = []
            lock.unlock()
            for w in ws { w.resume(returning: code) }
        }
    }

    /// The exit status (128+signal when killed), once the child has ended.
    public var exitStatus: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    public var isRunning: Bool { exitStatus == nil }

    /// Waits for the child to end and returns its exit status.
    public func wait() async -> Int32 {
        await withCheckedContinuation { cont in
            lock.lock()
            if let s = status {
                lock.unlock()
                cont.resume(returning: s)
            } else {
                waiters.append(cont)
                lock.unlock()
            }
        }
    }

    /// Waits (blocking this thread) at most `timeout` for the end; true if it ended.
    @discardableResult
    public func waitBlocking(timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if exitStatus != nil { return true }
            usleep(2_000)
        }
        return exitStatus != nil
    }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Asks the child to end (SIGTERM), and kills it if it has not after `grace`.
    public func terminate(grace: Duration = .seconds(2)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if !waitBlocking(timeout: grace) {
            kill(pid, SIGKILL)
            waitBlocking(timeout: .seconds(2))
        }
    }
}
