import Synchronization

/// The signals an async method handler emits as it ends (``Connection/emitWithReply(path:interface:member:_:destination:)``)
/// and the work it leaves for after its reply (``Connection/afterReply(_:)``), run in the same turn
/// of the loop thread as the method's reply, just after it: the caller waits for its reply alone
/// (the bus routes it before the signals), and the loop thread wakes once for all of them
/// instead of once for each (a context switch each on a busy machine).
final class ReplyBatch: Sendable {
    /// The batch of the method call the current task handles, if any.
    @TaskLocal static var current: ReplyBatch?

    let core: ConnectionCore
    /// The jobs held; nil once the reply went (later ones are sent at once).
    private let jobs = Mutex<[JobQueue.Job]?>([])
    /// Current while the held jobs run (``run(_:core:)``): a job added then runs at once, in order.
    private let runsAtOnce: Bool

    init(core: ConnectionCore) { (self.core, self.runsAtOnce) = (core, false) }

    private init(runningFor core: ConnectionCore) { (self.core, self.runsAtOnce) = (core, true) }

    /// Runs `jobs`, held for a reply of `core` that was just sent, on the loop thread: what they
    /// emit with the reply or leave for after it goes out at once, in order with them (work left
    /// for after the reply may build its signals there, off the caller's wait).
    static func run(_ jobs: [JobQueue.Job], core: ConnectionCore) {
        guard !jobs.isEmpty else { return }
        $current.withValue(ReplyBatch(runningFor: core)) {
            for job in jobs { job() }
        }
    }

    /// Holds `job` for the reply (runs it now while the held jobs run); false when the batch is closed.
    func add(_ job: @escaping JobQueue.Job) -> Bool {
        if runsAtOnce {
            job()
            return true
        }
        return jobs.withLock { held in
            guard held != nil else { return false }
            held!.append(job)
            return true
        }
    }

    /// The jobs held, closing the batch.
    func close() -> [JobQueue.Job] {
        jobs.withLock { held in
            defer { held = nil }
            return held ?? []
        }
    }
}
