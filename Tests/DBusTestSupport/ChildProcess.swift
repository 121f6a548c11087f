import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, a clean signal mask, default signal
/// handlers and no inherited descriptors but its three standard ones. (Foundation's `Process` hands children the spawning thread's mask, which
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
        func openFD(_ path: String, _ flags: Int32) throws -> Int32 {
            let fd = open(path, flags | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw ToolError("cannot open \(path): errno \(errno)") }
            return fd
        }
        let inFD = try openFD(stdin, O_RDONLY)
        defer { close(inFD) }
        let outFD = try stdoutFD ?? openFD(stdout, O_WRONLY | O_CREAT | O_APPEND)
        defer { if stdoutFD == nil { close(outFD) } }
        let errFD = try openFD(stderr, O_WRONLY | O_CREAT | O_APPEND)
        defer { close(errFD) }

        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in cArgs { free(p) }
            for p in cEnv { free(p) }
        }
        var child: pid_t = 0
        var rc = clinux_spawn_io(argv[0], cArgs, cEnv, nil, inFD, outFD, errFD, 0, &child)
        // A program the test has just written can still be open for writing in a child another
        // test forked meanwhile (until that child execs): ETXTBSY. Tried again, up to 10 s, for
        // the other child to exec (seen with four CPU hogs: LeanEntryTests' fresh copy).
        var waited = 0
        while rc == ETXTBSY && waited < 10_000 {
            usleep(20_000)
            waited += 20
            rc = clinux_spawn_io(argv[0], cArgs, cEnv, nil, inFD, outFD, errFD, 0, &child)
        }
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

    /// Asks the child to end (SIGTERM), kills it (SIGKILL) if it has not after `grace`, and
    /// waits (up to `grace` again) until it has ended: for a compositor whose folder is removed next.
    public func stopBlocking(grace: Duration = .seconds(10)) {
        guard isRunning else { return }
        signal(SIGTERM)
        if !waitBlocking(timeout: grace) {
            signal(SIGKILL)
            _ = waitBlocking(timeout: grace)
        }
    }

    /// Asks the child to end (SIGTERM), and kills it if it has not after `grace`. Returns at
    /// once: the wait (and the SIGKILL, if needed) happens on a thread of its own, so a test's
    /// clean-up never holds one of the few threads every async test shares. ``wait()`` for the end.
    public func terminate(grace: Duration = .seconds(2)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        Thread.detachNewThread { [self] in
            if !waitBlocking(timeout: grace) { signal(SIGKILL) }
        }
    }
}
