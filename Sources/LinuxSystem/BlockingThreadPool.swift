import Synchronization

/// A pool of threads of our own for blocking work: reads that may never return (another
/// process's `/proc` files, its root and executable; a caller's descriptor on a file system that
/// never answers, FUSE in its own user namespace), disk writes — work that must run neither on
/// the D-Bus loop thread nor on the cooperative pool, and that is never waited for longer than
/// ``timeout``.
///
/// Each job runs on a thread of the pool (named ``threadName``), at most ``maximumThreads`` at
/// once; a job waits for a free one within its ``timeout``. A thread whose job ended stays parked
/// for ``idleLifetime`` and takes the next job (starting a thread costs more than most jobs), then
/// ends. A job that times out is abandoned (its caller gets nil) while its thread finishes
/// whenever the system lets it; when every thread has been stuck longer than ``timeout``, new
/// jobs are refused at once instead of waiting. A waiting queue longer than ``maximumWaiting`` is
/// refused too. So a stuck read costs one thread, never a shared one, and a pool never delays a
/// call by more than ``timeout``. Threads are started when jobs come, never ahead: an idle pool
/// holds no thread.
public final class BlockingThreadPool: Sendable {
    /// The longest a job is waited for (queueing included).
    public let timeout: Duration
    /// The most threads running jobs at once.
    public let maximumThreads: Int
    /// The most jobs waiting for a thread.
    public let maximumWaiting: Int

    /// How long a thread whose job ended waits for another before it ends.
    public let idleLifetime: Duration

    private struct State {
        var running: [UInt64: ContinuousClock.Instant] = [:]
        var waiting: [(id: UInt64, start: @Sendable (UInt64) -> Void)] = []
        var nextID: UInt64 = 0
        /// Threads parked between jobs, the most recently parked last.
        var idle: [IdleThread] = []
        /// Jobs not answered yet: when each is given up, and how.
        var deadlines: [UInt64: (at: ContinuousClock.Instant, expire: @Sendable () -> Void)] = [:]
        var nextJob: UInt64 = 0
        /// Whether the watchdog runs (``watchdog()``: one for the pool, not a timer per job).
        var watching = false
    }
    private let state = Mutex(State())

    /// The name its threads carry (`ps`, `perf`).
    public let threadName: String

    /// A pool whose threads are named `name` (15 bytes at most are kept: `sb-identify`,
    /// `sb-fd-work`), each kind of blocking work in a pool of its own.
    public init(name: String, timeout: Duration, maximumThreads: Int, maximumWaiting: Int = 1024, idleLifetime: Duration = .seconds(5)) {
        self.threadName = name
        self.idleLifetime = idleLifetime
        self.timeout = timeout
        self.maximumThreads = max(1, maximumThreads)
        self.maximumWaiting = max(0, maximumWaiting)
    }

    /// Threads running a job now (stuck ones included).
    public var runningCount: Int { state.withLock { $0.running.count } }

    /// Threads parked between jobs now.
    public var idleCount: Int { state.withLock { $0.idle.count } }

    /// The result of `job`, run on a thread of its own; nil when it did not finish within
    /// ``timeout`` or could not be started.
    public func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T? {
        let id = state.withLock { s in
            defer { s.nextJob += 1 }
            return s.nextJob
        }
        let outcome = Outcome<T> { [self] in state.withLock { _ = $0.deadlines.removeValue(forKey: id) } }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            outcome.install(continuation)
            watch(id, until: .now + timeout) { outcome.finish(nil) }
            acquire { [self, outcome] slot in
                guard let slot else { return outcome.finish(nil) }
                guard !outcome.isFinished else { return release(slot) }
                let started = hand(slot) { [outcome] in outcome.finish(job()) }
                if !started {
                    release(slot)
                    outcome.finish(nil)
                }
            }
        }
    }

    /// Gives up job `id` with `expire` at `deadline` unless it is answered first (its outcome
    /// removes it): the pool's one watchdog sleeps until the first deadline, and starts only when
    /// none runs — every deadline is ``timeout`` after its job came, so none comes before those
    /// it already watches.
    private func watch(_ id: UInt64, until deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            s.deadlines[id] = (deadline, expire)
            defer { s.watching = true }
            return !s.watching
        }
        if start { Task { [self] in await watchdog() } }
    }

    /// Gives up the jobs whose deadline passed, then sleeps until the next; ends when no job is left.
    private func watchdog() async {
        while true {
            let now = ContinuousClock.now
            let (expired, next) = state.withLock { s -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                let due = s.deadlines.filter { $0.value.at <= now }
                for id in due.keys { s.deadlines.removeValue(forKey: id) }
                let next = s.deadlines.values.map { $0.at }.min()
                if next == nil { s.watching = false }
                return (due.values.map { $0.expire }, next)
            }
            expired.forEach { $0() }
            guard let next else { return }
            try? await Task.sleep(until: next, clock: .continuous)
        }
    }

    /// Gives `work` (holding `slot`) to a parked thread, else to a new one; false when no thread
    /// could be started.
    private func hand(_ slot: UInt64, _ work: @escaping @Sendable () -> Void) -> Bool {
        if let parked = state.withLock({ $0.idle.popLast() }) {
            parked.give(work, slot: slot)
            return true
        }
        let idle = IdleThread(first: work, slot: slot)
        guard let thread = OSThread.start(name: threadName, { [self] in serve(idle) }) else { return false }
        thread.detach()
        return true
    }

    /// A thread's life: its work, then parked for the next until ``idleLifetime`` passes unused.
    /// It parks before it frees its slot, so a job waiting for that slot comes to this thread.
    private func serve(_ me: IdleThread) {
        let (seconds, atto) = idleLifetime.components
        let lifetime = Int(seconds) + (atto > 0 ? 1 : 0)
        while let (work, slot) = me.take() {
            work()
            let parked = state.withLock { s -> Bool in
                guard s.idle.count < maximumThreads else { return false }
                s.idle.append(me)
                return true
            }
            release(slot)
            guard parked else { return }
            if me.parking.park(seconds: lifetime) { continue }
            // Timed out: end, unless a job was handed over meanwhile (then it is on its way).
            let stillIdle = state.withLock { s -> Bool in
                guard let i = s.idle.firstIndex(where: { $0 === me }) else { return false }
                s.idle.remove(at: i)
                return true
            }
            if stillIdle { return }
            me.parking.park()
        }
    }

    /// Calls `start` with a slot (at once or when one frees), or with nil when refused.
    private func acquire(_ start: @escaping @Sendable (UInt64?) -> Void) {
        let now = ContinuousClock.now
        enum Decision { case run(UInt64), wait, refuse }
        let decision: Decision = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            if s.running.count < maximumThreads {
                s.running[id] = now
                return .run(id)
            }
            let allStuck = s.running.values.allSatisfy { now - $0 > timeout }
            if allStuck || s.waiting.count >= maximumWaiting { return .refuse }
            s.waiting.append((id, { start($0) }))
            return .wait
        }
        switch decision {
        case .run(let id): start(id)
        case .wait: break
        case .refuse: start(nil)
        }
    }

    /// Frees `slot`, handing it to the first waiting job.
    private func release(_ slot: UInt64) {
        let next: (UInt64, @Sendable (UInt64) -> Void)? = state.withLock { s in
            s.running.removeValue(forKey: slot)
            guard !s.waiting.isEmpty else { return nil }
            let w = s.waiting.removeFirst()
            s.running[w.id] = ContinuousClock.now
            return (w.id, w.start)
        }
        if let (id, start) = next { start(id) }
    }
}

/// A thread parked between jobs and the work handed to it, with the slot it holds.
private final class IdleThread: Sendable {
    typealias Work = (run: @Sendable () -> Void, slot: UInt64)
    let parking = ThreadParking()
    private let work: Mutex<Work?>

    /// A thread about to start with `first` (no wake-up needed).
    init(first: @escaping @Sendable () -> Void, slot: UInt64) { work = Mutex((first, slot)) }

    /// Hands `job` over and wakes the thread.
    func give(_ job: @escaping @Sendable () -> Void, slot: UInt64) {
        work.withLock { $0 = (job, slot) }
        parking.unpark()
    }

    /// The work handed over (once).
    func take() -> Work? { work.withLock { w in defer { w = nil }; return w } }
}

/// One job's answer, delivered once: by the job or by the pool's watchdog, whichever comes first;
/// `finished` runs then (the watchdog forgets the job).
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        var finished = false
    }
    private let state = Mutex(State())
    private let finished: @Sendable () -> Void

    init(finished: @escaping @Sendable () -> Void) { self.finished = finished }

    func install(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    func finish(_ value: T?) {
        let (first, continuation) = state.withLock { s -> (Bool, CheckedContinuation<T?, Never>?) in
            guard !s.finished else { return (false, nil) }
            s.finished = true
            defer { s.continuation = nil }
            return (true, s.continuation)
        }
        guard first else { return }
        finished()
        continuation?.resume(returning: value)
    }
}
