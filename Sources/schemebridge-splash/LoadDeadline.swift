import Glibc

/// The helper's timeout while the image is read and prepared: decoding is one blocking call
/// that no poll loop can interrupt, so a real-time timer (`SIGALRM`) ends the helper when the
/// timeout passes before the session's own loop takes over. Ending then is an ordinary
/// take-down (status 0: "the timeout passed"), never a crash.
enum LoadDeadline {
    /// Arms the timer for what is left of `timeoutMs` since `start` (monotonic ms); exits at
    /// once when nothing is left.
    static func arm(start: Int64, timeoutMs: Int64, log: Log) {
        let left = start + timeoutMs - monotonicMilliseconds()
        guard left > 0 else {
            log.event("timeout (\(timeoutMs) ms) passed; the image is not decoded")
            exit(ExitStatus.takenDown.rawValue)
        }
        _ = signal(SIGALRM) { _ in _exit(ExitStatus.takenDown.rawValue) }
        set(milliseconds: left)
    }

    /// Disarms the timer: the session's loop watches the timeout from here on.
    static func disarm() {
        set(milliseconds: 0)
        _ = signal(SIGALRM, SIG_DFL)
    }

    private static func set(milliseconds: Int64) {
        var timer = itimerval()
        timer.it_value.tv_sec = Int(milliseconds / 1000)
        timer.it_value.tv_usec = Int(milliseconds % 1000) * 1000
        _ = setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
    }
}
