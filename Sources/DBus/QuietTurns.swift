import Glibc

/// The tasks waiting for the loop's next quiet turn (``Connection/quietTurn()``), and when they
/// go at the latest. Loop thread only (a field of ``ConnectionCore``).
///
/// A waiter goes on once the loop has waited for the bus and nothing came for the rest of that
/// wait — the loop had nothing else to do — or, while messages keep coming, once ``latest`` has
/// passed since the first of them asked: the loop's `poll` is given at most that long, so no
/// timer, thread or descriptor is made for it.
struct QuietTurns {
    /// How long a waiter waits at most (ns): 20 ms, longer than the kernel's tick (4 ms at the
    /// usual 250 Hz, 1 ms at 1000 Hz). A `poll` timeout that ends before the next tick makes the
    /// kernel program the CPU's timer for it as the thread goes to sleep, and in a virtual
    /// machine that costs ~15 µs (a VM exit) that the bus daemon — often runnable behind the loop
    /// thread, with the message just sent — waits through: 1 ms here kept the loop thread
    /// running ~13 µs longer after a device share's `Response` (docs/PERFORMANCE.md, session 18).
    static let latest: Int64 = 20_000_000

    private var waiters: [UnsafeContinuation<Void, Never>] = []
    /// When the first waiter goes at the latest (`CLOCK_MONOTONIC`, ns).
    private var deadline = Int64.max

    var isEmpty: Bool { waiters.isEmpty }

    /// Adds `waiter` (`now`: the monotonic clock, ns).
    mutating func add(_ waiter: UnsafeContinuation<Void, Never>, now: Int64 = now()) {
        if waiters.isEmpty { deadline = now + Self.latest }
        waiters.append(waiter)
    }

    /// The loop's `poll` timeout (ms, -1: none) with waiters: no later than their deadline. A
    /// timeout of 0 (the loop is busy) stays 0.
    func timeout(_ timeout: Int32, now: Int64 = now()) -> Int32 {
        guard !waiters.isEmpty, timeout != 0 else { return timeout }
        let left = max(0, deadline - now)
        let ms = Int32(clamping: (left + 999_999) / 1_000_000)
        return timeout < 0 ? ms : min(timeout, ms)
    }

    /// After a `poll` given `timeout` that found `ready` descriptors: the waiters go on (their
    /// steps queued on the loop) when the loop was quiet — it waited, and nothing came — or their
    /// deadline has passed.
    mutating func afterPoll(timeout: Int32, ready: Int32, now: @autoclosure () -> Int64 = now()) {
        guard !waiters.isEmpty, (timeout != 0 && ready == 0) || now() >= deadline else { return }
        resumeAll()
    }

    /// Lets every waiter go on (the loop ends, or they are due).
    mutating func resumeAll() {
        let going = waiters
        waiters.removeAll()
        deadline = .max
        for waiter in going { waiter.resume() }
    }

    /// The monotonic clock (ns).
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
