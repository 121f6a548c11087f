import CLinux
import LinuxSystem
import Synchronization
import Glibc

/// Reaps every child the service starts, so none is left a zombie, and reports each exit.
/// One thread polls a pidfd per child (plus an eventfd to learn of new children): cost is
/// per running child, nothing per launch beyond a descriptor.
public final class ChildReaper: Sendable {
    /// The process-wide reaper.
    public static let shared = ChildReaper()

    private struct Child {
        let pid: pid_t
        let fd: Int32
        let onExit: (@Sendable (Int32) -> Void)?
    }

    private let children = Mutex<[Child]>([])
    private let wakeFD: Int32

    private init() {
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        OSThread.detached(name: "reaper") { [self] in loop() }
    }

    /// Watches `pid` (a child of this process) and calls `onExit` with its exit code.
    public func watch(pid: pid_t, onExit: (@Sendable (Int32) -> Void)?) {
        let fd = clinux_pidfd_open(pid)
        if fd < 0 {
            // No pidfd (old kernel): a thread that waits for this one child.
            OSThread.detached(name: "reaper-\(pid)") {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                onExit?(code)
            }
            return
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        children.withLock { $0.append(Child(pid: pid, fd: fd, onExit: onExit)) }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// The number of children being watched.
    public var watchedCount: Int { children.withLock { $0.count } }

    private func loop() {
        var fds: [pollfd] = []
        while true {
            let snapshot = children.withLock { $0 }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            for c in snapshot { fds.append(pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 { continue }
            if fds[0].revents != 0 {
                var v: UInt64 = 0
                _ = read(wakeFD, &v, 8)
            }
            var ended: [(Child, Int32)] = []
            for (i, c) in snapshot.enumerated() where fds[i + 1].revents != 0 {
                var code: Int32 = 0
                let r = clinux_reap(c.pid, &code)
                if r != 0 { ended.append((c, r > 0 ? code : -1)) }
            }
            if ended.isEmpty { continue }
            let endedPIDs = Set(ended.map { $0.0.pid })
            children.withLock { $0.removeAll { endedPIDs.contains($0.pid) } }
            for (c, code) in ended {
                close(c.fd)
                c.onExit?(code)
            }
        }
    }
}
