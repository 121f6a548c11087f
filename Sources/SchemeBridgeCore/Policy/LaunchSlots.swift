import Synchronization

/// Counts launches in flight against a limit, in all and per caller. A ``LaunchSlot`` is held
/// for the whole launch and given back when the last reference to it goes, so no path can
/// forget to.
public final class LaunchSlots: Sendable {
    private struct Counts {
        var total = 0
        /// Launches in flight per caller (nil: the unidentified callers, together); a key is
        /// removed when its count is back to 0, so the table never holds more keys than launches
        /// in flight.
        var perCaller: [CallerID?: Int] = [:]
    }
    private let counts = Mutex(Counts())

    /// Why no slot was given.
    public enum Refusal: Error, Sendable, Equatable {
        /// `limit` launches are in flight in all.
        case total(limit: Int)
        /// The caller has `limit` launches in flight.
        case caller(limit: Int)
    }

    public init() {}

    /// A slot for `caller` (nil: an unidentified caller; they are counted together, as one
    /// caller): refused when `limit` launches are in flight in all, or `perCaller` of them are
    /// this caller's. A caller is counted by its identity, so `org.example.App` and
    /// `org.example.App.desktop` are one caller (``CallerID``).
    public func take(caller: CallerID?, limit: Int, perCaller: Int) throws(Refusal) -> LaunchSlot {
        let refusal = counts.withLock { c -> Refusal? in
            if c.total >= limit { return .total(limit: limit) }
            if c.perCaller[caller, default: 0] >= perCaller { return .caller(limit: perCaller) }
            c.total += 1
            c.perCaller[caller, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
        return LaunchSlot(owner: self, caller: caller)
    }

    /// Launches in flight now.
    public var inFlight: Int { counts.withLock { $0.total } }

    /// Launches in flight now for `caller` (nil: the unidentified callers).
    public func inFlight(caller: CallerID?) -> Int { counts.withLock { $0.perCaller[caller, default: 0] } }

    fileprivate func give(_ caller: CallerID?) {
        counts.withLock { c in
            c.total -= 1
            let left = c.perCaller[caller, default: 1] - 1
            c.perCaller[caller] = left > 0 ? left : nil
        }
    }
}

/// One launch in flight; given back when released.
public final class LaunchSlot: Sendable {
    private let owner: LaunchSlots
    private let caller: CallerID?
    fileprivate init(owner: LaunchSlots, caller: CallerID?) {
        self.owner = owner
        self.caller = caller
    }
    deinit { owner.give(caller) }
}
