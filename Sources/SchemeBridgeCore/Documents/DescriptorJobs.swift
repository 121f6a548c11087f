import Synchronization

/// How many jobs on descriptors one caller may have running or waiting (documents to read and
/// copy into an Inbox, pasteboard data to copy): reading a caller's descriptor may block for as
/// long as the caller likes (a FUSE file system in its own namespace), so one app must not take
/// every thread that does it.
public final class DescriptorJobs: Sendable {
    /// Jobs one caller may have running or waiting.
    public static let perCaller = 2
    private let running = Mutex(KeyedCounts())

    public init() {}

    /// Takes a job for the caller known as `key` (its app id, else its bus name); false when it
    /// has ``perCaller`` already. A job taken must be given back with ``give(_:)``.
    public func take(_ key: String) -> Bool {
        running.withLock { r -> Bool in
            guard r[key] < Self.perCaller else { return false }
            r.add(key)
            return true
        }
    }

    /// Gives back a job taken for `key`.
    public func give(_ key: String) { running.withLock { $0.remove(key) } }

    /// Jobs running or waiting now for `key`.
    public func count(_ key: String) -> Int { running.withLock { $0[key] } }
}
