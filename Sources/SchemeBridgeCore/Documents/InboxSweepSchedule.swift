import Synchronization

/// When the Inboxes are swept of copies past their retention (``Inbox/sweep(retention:now:)``):
/// at start, and on opening a document when no sweep was asked for in the last ``interval``
/// seconds, so a stream of `OpenFile` calls does not list every Inbox each time.
public final class InboxSweepSchedule: Sendable {
    /// Seconds between sweeps at least.
    public static let interval: Int64 = 60
    /// When a sweep was last asked for (seconds since the epoch; 0: never).
    private let last = Atomic<Int64>(0)

    public init() {}

    /// Whether to sweep at `now` (seconds since the epoch); notes `now` as the last time asked.
    public func isDue(now: Int64) -> Bool {
        last.exchange(now, ordering: .relaxed) < now - Self.interval
    }
}
