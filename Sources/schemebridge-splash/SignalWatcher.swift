import CX11
import Glibc

/// SIGTERM, SIGINT and SIGHUP as a readable descriptor (signalfd), so the poll loop handles them
/// like any other event and no code runs in signal context. The signals are blocked first; the
/// helper starts no threads and no children, so nothing else ever sees the blocked mask.
/// SIGPIPE is ignored so that a dead X connection reaches the Xlib I/O error handler.
struct SignalWatcher {
    /// The signalfd.
    let fd: Int32

    init() throws(SplashFailure) {
        _ = signal(SIGPIPE, SIG_IGN)
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, s) }
        guard sigprocmask(SIG_BLOCK, &mask, nil) == 0 else {
            throw SplashFailure(.xFailure, "sigprocmask failed: \(String(cString: strerror(errno)))")
        }
        fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard fd >= 0 else { throw SplashFailure(.xFailure, "signalfd failed: \(String(cString: strerror(errno)))") }
    }

    /// The pending signal's number, if one is waiting.
    func read() -> Int32? {
        var info = signalfd_siginfo()
        let n = withUnsafeMutableBytes(of: &info) { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(info.ssi_signo)
    }

    /// Closes the descriptor.
    func close() { _ = Glibc.close(fd) }
}
