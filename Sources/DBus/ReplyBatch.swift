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

    init(core: ConnectionCore) { self.core = core }

    /// Holds `job` for the reply; false when the batch is closed.
    func add(_ job: @escaping JobQueue.Job) -> Bool {
        jobs.withLock { held in
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
