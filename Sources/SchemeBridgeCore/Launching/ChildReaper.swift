import CLinux
import LinuxSystem
import Synchronization
import Glibc

/// Reaps every child the service starts, so none is left a zombie, and reports each exit.
/// One thread waits on an epoll set of one pidfd per child: a new child is added to the set by
/// the thread that started it, without waking the reaper (on the `OpenURL` path that wake-up cost
/// a context switch per launch, beside the one its exit costs). Cost is per running child, nothing
/// per launch beyond a descriptor.
public final class ChildReaper: Sendable {
    /// The process-wide reaper.
    public static let shared = ChildReaper()

    private struct Child {
        let pid: pid_t
        let fd: Int32
        let onExit: (@Sendable (Int32) -> Void)?
    }

    /// The children watched, by pidfd.
    private let children = Mutex<[Int32: Child]>([:])
    private let epollFD: Int32

    private init() {
        epollFD = clinux_epoll_create()
        if epollFD >= 0 { OSThread.detached(name: "reaper") { [self] in loop() } }
    }

    /// Watches `pid` (a child of this process) and calls `onExit` with its exit code.
    public func watch(pid: pid_t, onExit: (@Sendable (Int32) -> Void)?) {
        let fd = epollFD < 0 ? -1 : clinux_pidfd_open(pid)  // close-on-exec, as every pidfd
        if fd >= 0 {
            let pidfd = FileDescriptor(owning: fd)
            children.withLock { $0[fd] = Child(pid: pid, fd: fd, onExit: onExit) }
            // The table owns it from here: closed when the child is reaped (``loop()``).
            if clinux_epoll_add(epollFD, fd) == 0 { _ = pidfd.take(); return }
            children.withLock { _ = $0.removeValue(forKey: fd) }
        }
        // No pidfd (old kernel) or no epoll set: a thread that waits for this one child.
        OSThread.detached(name: "reaper-\(pid)") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            onExit?(code)
        }
    }

    /// The number of children being watched.
    public var watchedCount: Int { children.withLock { $0.count } }

    private func loop() {
        var ready = [Int32](repeating: 0, count: 64)
        while true {
            let n = ready.withUnsafeMutableBufferPointer { clinux_epoll_wait_fds(epollFD, $0.baseAddress, Int32($0.count), -1) }
            if n <= 0 { continue }
            var ended: [(Child, Int32)] = []
            // Each descriptor once: one number can come twice in a batch — a pidfd closed while a
            // child forked elsewhere still held it stays registered, and its number is reused for
            // the next child's pidfd — and a second waitid on a reaped child is ECHILD, which
            // reported that child again, as -1.
            for fd in Set(ready[0..<Int(n)]) {
                guard let c = children.withLock({ $0[fd] }) else { continue }
                var code: Int32 = 0
                let r = clinux_reap(c.pid, &code)
                if r != 0 { ended.append((c, r > 0 ? code : -1)) }
            }
            if ended.isEmpty { continue }
            // Out of the table before the descriptor is closed: its number may be reused at once.
            children.withLock { for (c, _) in ended { $0.removeValue(forKey: c.fd) } }
            for (c, code) in ended {
                _ = FileDescriptor(owning: c.fd)  // closed here
                c.onExit?(code)
            }
        }
    }
}
