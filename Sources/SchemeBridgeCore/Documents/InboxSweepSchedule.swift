import Synchronization

/// When the Inboxes are swept of copies past their retention (``Inbox/sweep(retention:now:)``):
/// at start, and on opening a document when no sweep ran in the last ``interval`` seconds, so a
/// stream of `OpenFile` calls does not list every Inbox each time — and a steady stream (one
/// document every 59 s) still gets a sweep a minute: only a sweep that runs moves the clock.
public final class InboxSweepSchedule: Sendable {
    /// Seconds between sweeps at least.
    public static let interval: Int64 = 60
    /// When a sweep last ran (seconds since the epoch; 0: never).
    private let last = Atomic<Int64>(0)

    public init() {}

    /// Whether to sweep at `now` (seconds since the epoch); when it is, notes `now` as the last
    /// sweep (one caller of several asking at once gets it).
    public func isDue(now: Int64) -> Bool {
        var seen = last.load(ordering: .relaxed)
        while seen < now - Self.interval {
            let (exchanged, current) = last.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { return true }
            seen = current
        }
        return false
    }
}
