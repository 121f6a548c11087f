import CLinux

/// How long the kernel lets the calling thread run before others may (its slice, Linux 6.12 and
/// later). A thread that does little each time it wakes — the service's D-Bus loop — asks for a
/// short one: its deadline comes sooner, so it runs sooner when woken beside busier threads (a
/// file being sent, another program), without taking more CPU in all. Without it, a loop thread
/// preempted as it sent a call could wait milliseconds for its core (docs/PERFORMANCE.md, session 15).
public enum ThreadSlice {
    /// Asks for slices of `duration` for the calling thread (`.zero` or less: the kernel's
    /// default); its policy and nice value stay. The kernel keeps a slice within 0.1-100 ms (a
    /// kernel before 6.12 takes any and ignores it). 0, or the errno the kernel gave.
    @discardableResult
    public static func request(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds < 0 ? 0 : min(seconds, 10) * 1_000_000_000 + attoseconds / 1_000_000_000
        return clinux_request_slice(UInt64(max(0, nanoseconds)))
    }

    /// The slice the kernel holds for thread `tid` (0: the calling one) — its default unless one
    /// was asked for; nil from a kernel before 6.12 (or for a thread it would not tell about).
    public static func current(thread tid: Int32 = 0) -> Duration? {
        let ns = clinux_thread_slice(tid)
        return ns > 0 ? .nanoseconds(ns) : nil
    }
}
