import LinuxSystem

/// Work on descriptors that callers hand over (pasteboard data to copy, documents to read and
/// copy into an Inbox): a regular file on a file system that never answers (FUSE in the
/// caller's own namespace) blocks whoever reads it, so this runs on threads of its own — never
/// the D-Bus loop thread or the shared pool — and one app has at most
/// `DescriptorJobs.perCaller` jobs at once (the core's rule), so it cannot take every thread.
public final class DescriptorWork: Sendable {
    public let threads = BlockingThreadPool(name: "sb-fd-work", timeout: .seconds(300), maximumThreads: 4, maximumWaiting: 64)
    private let jobs = DescriptorJobs()

    public init() {}

    /// Runs `work` for the caller known as `key` (its app id, else its bus name).
    public func run<T: Sendable>(for key: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard jobs.take(key) else {
            throw ServiceFailure(.limitsExceeded, "\(DescriptorJobs.perCaller) calls of yours are still reading descriptors; wait for them (or send sealed memfds, taken without reading)")
        }
        defer { jobs.give(key) }
        let outcome = await threads.run { () -> Result<T, any Error> in
            do { return .success(try work()) } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw ServiceFailure(.failed, "the descriptor could not be read in time (or the service is busy with others); try again")
        }
    }
}
