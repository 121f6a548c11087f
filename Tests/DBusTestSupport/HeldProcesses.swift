import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The processes running a program of a given name whose environment holds one of some entries
/// (e.g. `schemebridged` with `HOME=` a test's folder), each held by a pidfd opened before it
/// was recognised: a pid reused once the process has ended is never taken for it. For waiting,
/// before a test's folder is removed, until what a test's bus started has exited: a service that
/// writes into `$HOME` as it stops (`schemebridged` its registry index, in `~/.cache`) would
/// otherwise make the folder again after its removal.
public final class HeldProcesses: @unchecked Sendable {
    private var held: [(pid: pid_t, pidfd: Int32)] = []

    /// The processes whose executable is named `program` (nil: any) and whose environment holds
    /// one of `entries` (`NAME=value`), running now.
    public init(named program: String?, withEnvironment entries: Set<String>) {
        guard !entries.isEmpty else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in names {
            guard let pid = pid_t(name), pid != getpid(), Self.isNamed(program, pid) else { continue }
            let pidfd = clinux_pidfd_open(pid)
            guard pidfd >= 0 else { continue }
            // Looked at again once held: while the pidfd says the process runs, the pid is it.
            if Self.isNamed(program, pid), !Self.environment(pid).isDisjoint(with: entries), !Self.hasExited(pidfd) {
                held.append((pid, pidfd))
            } else {
                close(pidfd)
            }
        }
    }

    deinit {
        for p in held { close(p.pidfd) }
    }

    /// The process ids held.
    public var pids: [pid_t] { held.map(\.pid) }

    /// Sends SIGTERM to every process held (through its pidfd: never to a pid reused).
    public func terminate() {
        for p in held { _ = clinux_pidfd_send_signal(p.pidfd, SIGTERM) }
    }

    /// Waits, blocking this thread, until every process held has exited, at most `ceiling`;
    /// kills (SIGKILL) those still running then, and waits for them as long again. Returns the
    /// ids of those it killed.
    @discardableResult
    public func waitForExit(ceiling: Duration) -> [pid_t] {
        var left = held
        Self.wait(&left, ceiling: ceiling)
        let killed = left.map(\.pid)
        for p in left { _ = clinux_pidfd_send_signal(p.pidfd, SIGKILL) }
        Self.wait(&left, ceiling: ceiling)
        return killed
    }

    /// Polls the pidfds until all have exited or `ceiling` has passed; `left` keeps those running.
    private static func wait(_ left: inout [(pid: pid_t, pidfd: Int32)], ceiling: Duration) {
        let deadline = ContinuousClock.now + ceiling
        while !left.isEmpty {
            let rest = ContinuousClock.now.duration(to: deadline)
            guard rest > .zero else { return }
            var fds = left.map { pollfd(fd: $0.pidfd, events: Int16(POLLIN), revents: 0) }
            let ms = rest.components.seconds * 1000 + rest.components.attoseconds / 1_000_000_000_000_000 + 1
            if poll(&fds, nfds_t(fds.count), Int32(min(ms, 60_000))) < 0 && errno != EINTR { return }
            left = zip(left, fds).filter { $0.1.revents == 0 }.map(\.0)
        }
    }

    private static func hasExited(_ pidfd: Int32) -> Bool {
        var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) != 0
    }

    private static func isNamed(_ program: String?, _ pid: pid_t) -> Bool {
        guard let program else { return FileManager.default.fileExists(atPath: "/proc/\(pid)/exe") }
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else { return false }
        return exe.split(separator: "/").last.map(String.init) == program
    }

    private static func environment(_ pid: pid_t) -> Set<String> {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
        return Set(data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
    }
}
