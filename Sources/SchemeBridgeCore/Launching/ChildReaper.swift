import CLinux
import LinuxSystem
import Synchronization
import Glibc

/// Reaps every child the service starts, so none is left a zombie, and reports each exit.
/// Watched children's pidfds are in one epoll set, which polls readable once one has ended. A
/// loop the service runs anyway can wait on it (``host()``, the D-Bus loop's poll set): an exit
/// is then reaped there, with no thread of its own to wake — on the `OpenURL` path that thread
/// woke for every launch. Otherwise one thread waits on the set, started with the first child.
/// A new child is added to the set by the thread that started it, without waking the waiter.
/// Cost is per running child, nothing per launch beyond a descriptor.
public final class ChildReaper: Sendable {
    /// The process-wide reaper.
    public static let shared = ChildReaper()

    private struct Child {
        let pid: pid_t
        let fd: Int32
        let onExit: (@Sendable (Int32) -> Void)?
    }

    /// Who waits on the epoll set: nobody yet, the reaper's thread, or a host's loop.
    private enum Waiter { case none, thread, host }

    /// The children watched, by pidfd, and who waits for them.
    private let state = Mutex<(children: [Int32: Child], waiter: Waiter)>(([:], .none))
    private let epollFD: Int32

    init() {
        epollFD = clinux_epoll_create()
    }

    /// Hands the waiting to the caller's loop: returns a descriptor that polls readable while a
    /// watched child has ended; the loop calls ``reapEnded()`` then. Nil when the reaper's own
    /// thread waits already (a child was watched before) or there is no epoll set.
    public func host() -> Int32? {
        guard epollFD >= 0 else { return nil }
        return state.withLock { s in
            guard s.waiter != .thread else { return nil }
            s.waiter = .host
            return epollFD
        }
    }

    /// Watches `pid` (a child of this process) and calls `onExit` with its exit code.
    public func watch(pid: pid_t, onExit: (@Sendable (Int32) -> Void)?) {
        let fd = epollFD < 0 ? -1 : clinux_pidfd_open(pid)  // close-on-exec, as every pidfd
        if fd >= 0 {
            let pidfd = FileDescriptor(owning: fd)
            let startThread = state.withLock { s in
                s.children[fd] = Child(pid: pid, fd: fd, onExit: onExit)
                guard s.waiter == .none else { return false }
                s.waiter = .thread
                return true
            }
            if startThread { OSThread.detached(name: "reaper") { [self] in while true { reap(timeout: -1) } } }
            // The table owns it from here: closed when the child is reaped (``reap(timeout:)``).
            if clinux_epoll_add(epollFD, fd) == 0 { _ = pidfd.take(); return }
            state.withLock { _ = $0.children.removeValue(forKey: fd) }
        }
        // No pidfd (old kernel) or no epoll set: a thread that waits for this one child.
        OSThread.detached(name: "reaper-\(pid)") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            onExit?(code)
        }
    }

    /// Parks the calling thread — the service's main thread, which only hosts signal handlers —
    /// for good, with SIGCHLD blocked. Every other thread (the Swift runtime's, the D-Bus loop)
    /// blocks it already, so a child's exit signal stays pending once and later ones are dropped
    /// at once: an unblocked main thread took each (from a child whose starting thread had it
    /// blocked, as every thread has, and `posix_spawn` for its duration) — a wake-up of the main
    /// thread and of libdispatch's signalfd watcher at every handler's exit, for nothing: the
    /// reaper learns of an exit from the child's pidfd. SIGCHLD keeps its default disposition
    /// (never `SIG_IGN`, which would reap children before their status is read).
    public static func parkBlockingChildSignals() -> Never {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        while true { pause() }
    }

    /// The number of children being watched.
    public var watchedCount: Int { state.withLock { $0.children.count } }

    /// Reaps the watched children that have ended, calling their `onExit`, without waiting: for
    /// the loop that ``host()``s the reaper, when its descriptor polls readable.
    public func reapEnded() { reap(timeout: 0) }

    /// Reaps the watched children that have ended, once one has (waiting up to `timeout` ms, -1: for ever).
    private func reap(timeout: Int32) {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { ready in
            let n = Int(clinux_epoll_wait_fds(epollFD, ready.baseAddress, 64, timeout))
            if n <= 0 { return }
            var ended: [(Child, Int32)] = []
            // Each descriptor once: one number can come twice in a batch — a pidfd closed while a
            // child forked elsewhere still held it stays registered, and its number is reused for
            // the next child's pidfd — and a second waitid on a reaped child is ECHILD, which
            // reported that child again, as -1.
            for i in 0..<n where !ready[0..<i].contains(ready[i]) {
                guard let c = state.withLock({ $0.children[ready[i]] }) else { continue }
                var code: Int32 = 0
                let r = clinux_reap(c.pid, &code)
                if r != 0 { ended.append((c, r > 0 ? code : -1)) }
            }
            if ended.isEmpty { return }
            // Out of the table before the descriptor is closed: its number may be reused at once.
            state.withLock { s in for (c, _) in ended { s.children.removeValue(forKey: c.fd) } }
            for (c, code) in ended {
                _ = FileDescriptor(owning: c.fd)  // closed here
                c.onExit?(code)
            }
        }
    }
}
