import Synchronization
import Glibc

/// A token bucket per caller: `rate` launches a second on average, bursts up to `burst`.
///
/// Memory and time are bounded whatever the callers do: a bucket that has filled up again is
/// the same as no bucket and is dropped (a sweep at most once a second, over at most
/// ``maximumBuckets``), and there are never more than ``maximumBuckets``. A new caller arriving
/// while every bucket is still in use is counted under the one shared bucket instead (that of
/// unidentified callers), so no caller can get its bucket refilled by crowding it out with new
/// names. A caller is counted by its identity (``CallerID``): `org.example.App` and
/// `org.example.App.desktop` are one caller, with one bucket.
public final class LaunchRateLimiter: Sendable {
    /// The most buckets kept at once.
    public static let maximumBuckets = 4096
    /// What a bucket is kept for: one caller, or the bucket shared by unidentified callers and
    /// by callers that arrive when ``maximumBuckets`` are in use.
    private enum Key: Hashable {
        case caller(CallerID)
        case shared
    }

    private struct Bucket {
        var tokens: Double
        var last: Double
        var rate: Double
        var burst: Double

        /// The tokens at `now`.
        func tokens(at now: Double) -> Double { min(burst, tokens + max(0, now - last) * rate) }
    }
    private struct State {
        var buckets: [Key: Bucket] = [:]
        var nextSweep: Double = 0
    }
    private let rate: Double
    private let burst: Double
    private let cap: Int
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    /// `rate` 0 turns limiting off. `clock` gives monotonic seconds (tests pass their own);
    /// `maximumBuckets` is for tests.
    public init(rate: Double = 50, burst: Double = 100, maximumBuckets: Int = LaunchRateLimiter.maximumBuckets,
                clock: @escaping @Sendable () -> Double = LaunchRateLimiter.monotonicSeconds) {
        self.rate = rate
        self.burst = max(burst, 1)
        self.cap = max(maximumBuckets, 1)
        self.clock = clock
    }

    /// Seconds on the monotonic clock.
    @Sendable public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// A rate and a burst.
    public struct Limits: Sendable, Equatable {
        /// Tokens a second (0: no limit).
        public var rate: Double
        /// The most tokens saved up (at least 1).
        public var burst: Double

        public init(rate: Double, burst: Double) {
            self.rate = rate
            self.burst = max(burst, 1)
        }
    }

    /// Takes one token for `caller` at the limiter's own rate and burst.
    public func allow(_ caller: CallerID) -> Bool {
        let limits = Limits(rate: rate, burst: burst)
        return allow(caller, limits, shared: limits)
    }

    /// Takes one token for `caller`; false when the caller is over `limits` (rate 0: no limit).
    /// A nil `caller` (unidentified), and a new caller while ``maximumBuckets`` are in use, take
    /// from the one bucket they all share, at the `shared` limits.
    public func allow(_ caller: CallerID?, _ limits: Limits, shared: Limits) -> Bool {
        let now = clock()
        return state.withLock { s in
            if now >= s.nextSweep {
                s.nextSweep = now + 1
                s.buckets = s.buckets.filter { $0.value.tokens(at: now) < $0.value.burst }
            }
            var key = caller.map(Key.caller) ?? .shared
            if s.buckets[key] == nil && s.buckets.count >= cap - 1 { key = .shared }
            let l = key == .shared ? shared : limits
            guard l.rate > 0 else { return true }
            var b = s.buckets[key] ?? Bucket(tokens: l.burst, last: now, rate: l.rate, burst: l.burst)
            b.rate = l.rate
            b.burst = l.burst
            b.tokens = b.tokens(at: now)
            b.last = now
            let ok = b.tokens >= 1
            if ok { b.tokens -= 1 }
            s.buckets[key] = b
            return ok
        }
    }

    /// The buckets kept now (callers whose bucket has not filled up again).
    public var bucketCount: Int { state.withLock { $0.buckets.count } }
}
