import Synchronization

/// How request outcomes reach their callers (the reply service's bookkeeping beside
/// ``RequestTable``): an outcome is held until the method's reply naming the request has been
/// sent (``publish(_:)``), then sent at once; a share's request remembers its target (every
/// response names it); a reply that comes before its handler's start was recorded waits for it.
/// `Outcome` is the daemon's response value. The tables hold no `Outcome`-typed value (a held
/// one is boxed) and are of types outside the generic class: their code is compiled for their
/// own types here, not run unspecialized through `Outcome`'s metadata from the daemon.
public final class RequestOutcomes<Outcome: Sendable>: Sendable {
    private let tracking = Mutex<[UInt64: RequestTracking]>([:])
    /// Replies that came before their handler's start was recorded, waiting for it.
    private let startWaiters = Mutex<[UInt64: [CheckedContinuation<Void, Never>]]>([:])
    /// Share requests by id: the target once decided ("" before).
    private let shares = Mutex<[UInt64: ChooserTargetID?]>([:])

    /// Nothing tracked.
    public init() {}

    /// Starts tracking request `id`: its outcome is held until ``publish(_:)``.
    public func track(_ id: UInt64) {
        tracking.withLock { $0[id] = RequestTracking() }
    }

    /// The reply naming request `id` was sent: returns the outcome held for it, to send now.
    public func publish(_ id: UInt64) -> (outcome: Outcome, caller: String)? {
        let held = tracking.withLock { t in
            t[id]?.published = true
            return t[id]?.held
        }
        return held.map { ($0.outcome as! Outcome, $0.caller) }
    }

    /// Request `id` ended with `outcome` for `caller`: whether to send it now (published), else
    /// it is held until published (false also when the request is not tracked).
    public func sendsNow(_ id: UInt64, _ outcome: Outcome, caller: String) -> Bool {
        tracking.withLock { t in
            guard let published = t[id]?.published else { return false }
            if !published { t[id]?.held = (outcome, caller) }
            return published
        }
    }

    /// Forgets request `id` (wakes whoever waits for its start).
    public func drop(_ id: UInt64) {
        wakeStartWaiters(id)
        shares.withLock { _ = $0.removeValue(forKey: id) }
        tracking.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Requests tracked now.
    public var count: Int { tracking.withLock { $0.count } }

    /// Marks request `id` as a share going to `target` (nil while the sheet is up); nothing for
    /// a request not tracked — one that ended while its sheet was up, say: nothing would forget the mark.
    public func sharing(_ id: UInt64, target: ChooserTargetID?) {
        guard tracking.withLock({ $0[id] != nil }) else { return }
        shares.withLock { $0[id] = .some(target) }
    }

    /// Whether request `id` is a share (its target decided or not).
    public func isShare(_ id: UInt64) -> Bool {
        shares.withLock { $0[id] != nil }
    }

    /// Request `id`'s share target: nil when it is no share or none is decided yet.
    public func shareTarget(_ id: UInt64) -> ChooserTargetID? {
        shares.withLock { $0[id] ?? nil }
    }

    /// Waits until `isWaiting` (asked under the waiters' lock) says request `id` no longer waits
    /// for its handler's start; ``wakeStartWaiters(_:)`` or ``drop(_:)`` ends the wait.
    public func waitForStart(_ id: UInt64, isWaiting: () -> Bool) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = startWaiters.withLock { w -> Bool in
                guard isWaiting() else { return true }
                w[id, default: []].append(c)
                return false
            }
            if ready { c.resume() }
        }
    }

    /// Request `id`'s handler start was recorded (or it is gone): its waiters go on.
    public func wakeStartWaiters(_ id: UInt64) {
        for c in startWaiters.withLock({ $0.removeValue(forKey: id) }) ?? [] { c.resume() }
    }
}

/// Whether a request's reply went out, and its outcome if it came before (an `Outcome` of
/// ``RequestOutcomes``, boxed: a type nested in the generic class would be generic too).
private struct RequestTracking {
    var published = false
    /// An outcome that came before publication, and whom it is for.
    var held: (outcome: any Sendable, caller: String)?
}
