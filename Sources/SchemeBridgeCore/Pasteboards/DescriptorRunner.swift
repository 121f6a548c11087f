/// Where blocking work on a descriptor a caller handed over runs: threads of its own (never the
/// D-Bus loop thread or the shared pool), at most ``DescriptorJobs/perCaller`` jobs per caller.
/// ``DescriptorWork`` (the service's descriptor threads) is one; pasteboard copies, the outbox and share intake
/// run their reads through it.
public protocol DescriptorRunner: Sendable {
    /// Runs `work` for the caller known as `key` (its app id, else its bus name).
    func run<T: Sendable>(for key: String, _ work: @escaping @Sendable () throws -> T) async throws -> T
    /// A failure of ``run(for:_:)`` (or of the work it ran) as Core's failure: its kind and message.
    func failure(of error: any Error) -> ServiceFailure
}

extension DescriptorWork: DescriptorRunner {
    /// Its own refusals and the work's failures as they are; anything else `Failed`, as described.
    public func failure(of error: any Error) -> ServiceFailure {
        error as? ServiceFailure ?? ServiceFailure(.failed, "\(error)")
    }
}
