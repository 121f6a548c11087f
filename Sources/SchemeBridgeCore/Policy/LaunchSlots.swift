import Synchronization

/// Counts launches in flight against a limit. A ``LaunchSlot`` is held for the whole launch
/// and given back when the last reference to it goes, so no path can forget to.
public final class LaunchSlots: Sendable {
    private let count = Mutex(0)

    public init() {}

    /// A slot, or nil when `limit` launches are already in flight.
    public func take(limit: Int) -> LaunchSlot? {
        let ok = count.withLock { n -> Bool in
            if n >= limit { return false }
            n += 1
            return true
        }
        return ok ? LaunchSlot(owner: self) : nil
    }

    /// Launches in flight now.
    public var inFlight: Int { count.withLock { $0 } }

    fileprivate func give() { count.withLock { $0 -= 1 } }
}

/// One launch in flight; given back when released.
public final class LaunchSlot: Sendable {
    private let owner: LaunchSlots
    fileprivate init(owner: LaunchSlots) { self.owner = owner }
    deinit { owner.give() }
}
