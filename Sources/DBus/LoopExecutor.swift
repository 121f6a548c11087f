/// A connection's loop thread as a task executor (Swift's task executor preference): a task that
/// prefers it runs its nonisolated code on the loop thread, between the loop's other work, and
/// comes back to it after each wait — no hop to the shared pool and back. For short steps that
/// never block: every call on the connection waits behind them. Once the loop has ended, jobs go
/// to the global concurrent executor.
public final class LoopExecutor: TaskExecutor {
    let queue: JobQueue

    init(queue: JobQueue) { self.queue = queue }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !queue.submit(.step(job)) { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
