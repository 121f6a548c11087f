import CX11
import Glibc

/// The process tree as /proc shows it.
enum ProcessTree {
    /// Fields of `/proc/PID/stat` after the command name: state and parent pid.
    private static func stat(_ pid: pid_t) -> (state: UInt8, parent: pid_t)? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        // "pid (comm) S ppid ...": the command may hold spaces and parentheses; the last ')' ends it.
        guard let close = buffer[..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let rest = buffer[(close + 1)..<n].split(separator: UInt8(ascii: " "))
        guard rest.count >= 2, let state = rest[0].first,
              let parent = pid_t(String(decoding: rest[1], as: UTF8.self)) else { return nil }
        return (state, parent)
    }

    /// The parent of `pid`, or nil when it is gone.
    static func parent(of pid: pid_t) -> pid_t? { stat(pid)?.parent }

    /// Whether `pid` is `ancestor` or one of its descendants (walking parents, at most 64 steps).
    static func isSelfOrDescendant(_ pid: pid_t, of ancestor: pid_t) -> Bool {
        var current = pid
        for _ in 0..<64 {
            if current == ancestor { return true }
            guard current > 1, let parent = parent(of: current) else { return false }
            current = parent
        }
        return false
    }

    /// Whether `pid` has ended (gone, or a zombie waiting for its parent).
    static func hasExited(_ pid: pid_t) -> Bool {
        guard let s = stat(pid) else { return true }
        return s.state == UInt8(ascii: "Z") || s.state == UInt8(ascii: "X")
    }
}

/// The handler's exit as a pollable descriptor: pidfd_open(2) (the helper is not the handler's
/// parent, so it cannot wait for it), or — on kernels without pidfds — /proc polled by the timer.
struct HandlerExitWatch {
    /// The pidfd, or -1 when /proc must be polled.
    let fd: Int32
    /// The handler's pid.
    let pid: pid_t

    /// Opens the watch; `alreadyGone` is true when the handler does not exist any more.
    init(pid: pid_t) {
        self.pid = pid
        fd = schemebridge_pidfd_open(pid)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        pidfdError = fd < 0 ? errno : 0
    }

    /// errno of pidfd_open when it failed, else 0.
    let pidfdError: Int32

    /// Whether the handler has exited already (pidfd_open said ESRCH, or /proc says so).
    var alreadyGone: Bool { pidfdError == ESRCH || (fd < 0 && ProcessTree.hasExited(pid)) }

    /// Closes the descriptor.
    func close() { if fd >= 0 { _ = Glibc.close(fd) } }
}
