/// Where blocking work on a descriptor a caller handed over runs: threads of its own (never the
/// D-Bus loop thread or the shared pool), at most ``DescriptorJobs/perCaller`` jobs per caller.
/// The daemon's descriptor threads implement it; pasteboard copies, the outbox and share intake
/// run their reads through it.
public protocol DescriptorRunner: Sendable {
    /// Runs `work` for the caller known as `key` (its app id, else its bus name).
    func run<T: Sendable>(for key: String, _ work: @escaping @Sendable () throws -> T) async throws -> T
    /// A failure of ``run(for:_:)`` (or of the work it ran) as Core's failure: its kind and message.
    func failure(of error: any Error) -> ServiceFailure
}
