import LinuxSystem
import Synchronization

/// Runs blocking work (file writes with `fsync`) one job at a time on a thread of its own, so
/// that no number of queued jobs ever holds one of the few threads every task shares: a task
/// that submits work waits suspended. Jobs run in order; a job submitted while one with the
/// same key is last in the queue, still waiting to start, joins it (its work is not run again and
/// it gets the same output): a flood of identical requests costs one write per batch, and no
/// request is ever reordered. The thread exists only while there is work.
public final class SerialWriter<Output: Sendable>: Sendable {
    private final class Job: Sendable {
        let key: String
        let work: @Sendable () -> Output
        let waiters: Mutex<[CheckedContinuation<Output, Never>]>
        init(key: String, work: @escaping @Sendable () -> Output, first: CheckedContinuation<Output, Never>) {
            self.key = key
            self.work = work
            self.waiters = Mutex([first])
        }
    }
    private struct State {
        var queue: [Job] = []
        var head = 0
        var running = false
        var jobsRun = 0
    }
    private let name: String
    private let state = Mutex(State())

    /// `name` names the thread (`ps`, `perf`).
    public init(name: String) { self.name = name }

    /// Runs `work` on the writer's thread after the jobs before it, or joins the last waiting
    /// job when it has the same `key`; returns its output.
    public func run(key: String, _ work: @escaping @Sendable () -> Output) async -> Output {
        await withCheckedContinuation { continuation in
            let start = state.withLock { s -> Bool in
                if s.head < s.queue.count, let waiting = s.queue.last, waiting.key == key {
                    waiting.waiters.withLock { $0.append(continuation) }
                } else {
                    s.queue.append(Job(key: key, work: work, first: continuation))
                }
                if s.running { return false }
                s.running = true
                return true
            }
            if start { OSThread.detached(name: name) { [self] in drain() } }
        }
    }

    /// How many jobs have run (joined requests count once).
    public var jobsRun: Int { state.withLock { $0.jobsRun } }

    private func drain() {
        while let job = next() {
            let output = job.work()
            for waiter in job.waiters.withLock({ w in defer { w.removeAll() }; return w }) { waiter.resume(returning: output) }
        }
    }

    /// The next job, taken off the queue (so no request joins it once it runs); nil ends the thread.
    private func next() -> Job? {
        state.withLock { s in
            guard s.head < s.queue.count else {
                s.queue.removeAll()
                s.head = 0
                s.running = false
                return nil
            }
            let job = s.queue[s.head]
            s.head += 1
            s.jobsRun += 1
            if s.head > 1024 && s.head * 2 > s.queue.count {
                s.queue.removeFirst(s.head)
                s.head = 0
            }
            return job
        }
    }
}
