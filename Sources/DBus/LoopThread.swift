import CDBus
import LinuxSystem
import Synchronization
import Glibc

/// Starts the detached loop thread running `body`.
func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    OSThread.detached(name: name, body)
}

/// Milliseconds on the monotonic clock.
@inline(__always)
func monotonicMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// A queue of work for the loop thread, fed from any thread. Writing the eventfd wakes the
/// thread's `poll`; it is written only while the loop waits there (``prepareToWait()`` until
/// ``woke(drain:)``), once: a job queued while the loop is awake — by its own jobs and handlers
/// (a task on ``LoopExecutor`` resumed there) or by another thread meanwhile — is taken before
/// it waits again, with no write, `poll` and read of the eventfd.
final class JobQueue: Sendable {
    typealias Job = @Sendable () -> Void
    /// What the loop runs: a job, or a step of a task that prefers the loop (``LoopExecutor``),
    /// held as it came (no closure made for each step).
    enum Work: Sendable {
        case job(Job)
        case step(UnownedJob)

        /// Whether this is something asked of the connection (a job), not a step of a task, which
        /// has asked for nothing until it runs.
        var isAsk: Bool {
            if case .job = self { return true }
            return false
        }
    }
    private struct State {
        var jobs: [Work] = []
        /// How many of `jobs` are jobs, not steps (``Work/isAsk``).
        var asks = 0
        var closed = false
        /// The loop waits (or is about to) in `poll` and has not been woken yet.
        var waiting = false
        /// The eventfd writes so far.
        var wakes = 0

        /// Whether to write the eventfd now: once while the loop waits.
        mutating func wake() -> Bool {
            guard waiting else { return false }
            waiting = false
            wakes += 1
            return true
        }
    }
    private let state = Mutex(State())
    /// The eventfd that wakes the loop thread.
    let wakeFD: Int32

    init() {
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(wakeFD >= 0, "eventfd failed: errno \(errno)")
    }

    deinit { Glibc.close(wakeFD) }

    /// Queues `job` for the loop thread; when the loop has ended, runs `orElse` instead
    /// (on the caller's thread) and returns false.
    @discardableResult
    func submit(_ job: @escaping Job, orElse: (() -> Void)? = nil) -> Bool {
        guard submit(.job(job)) else {
            orElse?()
            return false
        }
        return true
    }

    /// Queues `work` for the loop thread; false when the loop has ended.
    func submit(_ work: Work) -> Bool {
        let (accepted, wake) = state.withLock { s -> (Bool, Bool) in
            if s.closed { return (false, false) }
            s.jobs.append(work)
            if work.isAsk { s.asks += 1 }
            return (true, s.wake())
        }
        if wake { signal() }
        return accepted
    }

    /// Wakes the loop thread if it waits in `poll` (libdbus's wake-up: the loop reads the
    /// watches again before each wait, so an awake loop needs none).
    func wakeIfWaiting() {
        if state.withLock({ $0.wake() }) { signal() }
    }

    /// Writes the eventfd.
    private func signal() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Called by the loop thread just before `poll`: false when a job is queued (then it must
    /// not wait); else jobs queued from now on wake it.
    func prepareToWait() -> Bool {
        state.withLock { s in
            s.waiting = s.jobs.isEmpty
            return s.waiting
        }
    }

    /// Called by the loop thread when `poll` returned: jobs queued from now on are taken
    /// without a wake; `drain` clears the eventfd when it was written.
    func woke(drain: Bool) {
        state.withLock { $0.waiting = false }
        if drain { drainWake() }
    }

    /// Clears the eventfd counter.
    private func drainWake() {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
    }

    /// Takes every queued job into `jobs` (empty), leaving the queue `jobs`'s buffer: the loop's
    /// two buffers take turns, and no turn allocates one (a turn that takes none swaps nothing).
    func take(into jobs: inout [Work]) {
        state.withLock { s in
            guard !s.jobs.isEmpty else { return }
            swap(&s.jobs, &jobs)
            s.asks = 0
        }
    }

    /// Refuses further jobs and returns those still queued.
    func close() -> [Work] {
        state.withLock { s in
            s.closed = true
            let jobs = s.jobs
            s.jobs = []
            s.asks = 0
            return jobs
        }
    }

    /// How many times the loop was woken for a job (or for libdbus) so far.
    var wakes: Int { state.withLock { $0.wakes } }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether no job is queued.
    var isEmpty: Bool { state.withLock { $0.jobs.isEmpty } }

    /// Whether a job asked of the connection is queued (not only steps of tasks).
    var holdsAsks: Bool { state.withLock { $0.asks > 0 } }
}
