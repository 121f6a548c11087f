import CLinux
import Synchronization
import Glibc
import LinuxSystem

/// The launch-image helpers running now: at most a given number at once, and each taken down
/// through a pidfd opened before it could be reaped, so a take-down never signals another
/// process that was given the same pid after the helper ended.
public final class HelperProcesses: Sendable {
    private struct Helper {
        /// The pidfd, -1 when the kernel has none (then the helper is signalled by pid, but only
        /// while it is still in this table, i.e. not yet reaped).
        var pidfd: Int32
    }
    private let running = Mutex<[Int32: Helper]>([:])
    private let launcher = ProcessLauncher()

    public init() {}

    /// Starts `argv` when fewer than `limit` helpers run; nil when `limit` are running (the
    /// caller shows no image, and launches anyway). `onExit` gets the exit code.
    public func start(argv: [String], environment: [String: String], limit: Int,
                      onExit: @escaping @Sendable (Int32) -> Void) throws(LaunchError) -> Int32? {
        // A place is taken before the spawn (under a key no pid has), so concurrent starts
        // never exceed `limit`.
        let placeholder = -Self.placeholders.add(1, ordering: .relaxed).newValue
        let fits = running.withLock { r -> Bool in
            guard r.count < limit else { return false }
            r[placeholder] = Helper(pidfd: -1)
            return true
        }
        guard fits else { return nil }
        let key = Key(placeholder)
        do {
            return try launcher.spawn(argv: argv, environment: environment, onStart: { [self] pid in
                let fd = clinux_pidfd_open(pid)
                if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                running.withLock { r in
                    r[placeholder] = nil
                    r[pid] = Helper(pidfd: fd)
                }
                key.value.store(pid, ordering: .sequentiallyConsistent)
            }, onExit: { [self] code in
                let pid = key.value.load(ordering: .sequentiallyConsistent)
                if let gone = running.withLock({ $0.removeValue(forKey: pid) }), gone.pidfd >= 0 { _ = FileDescriptor(owning: gone.pidfd) }
                onExit(code)
            })
        } catch {
            running.withLock { _ = $0.removeValue(forKey: placeholder) }
            throw error
        }
    }

    private final class Key: Sendable {
        let value: Atomic<Int32>
        init(_ v: Int32) { value = Atomic(v) }
    }
    private static let placeholders = Atomic<Int32>(0)

    /// Sends SIGTERM to helper `pid` while it runs; false when it is no longer one of ours
    /// (ended, reaped, or never started here) — then nothing is signalled.
    @discardableResult
    public func terminate(_ pid: Int32) -> Bool {
        running.withLock { r in
            guard pid > 0, let helper = r[pid] else { return false }
            if helper.pidfd >= 0 { return clinux_pidfd_send_signal(helper.pidfd, SIGTERM) == 0 }
            return kill(pid, SIGTERM) == 0
        }
    }

    /// The helpers running now (and being started).
    public var count: Int { running.withLock { $0.count } }
}
