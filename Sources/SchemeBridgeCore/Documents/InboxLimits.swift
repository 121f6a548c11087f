/// What the Inboxes may hold, all derived from `[Documents] MaxInboxBytes` and `Retention`.
///
/// A copy is charged its size to the receiving app's Inbox, to the caller
/// that sent it (across every Inbox) and to the Inboxes as a whole; before a byte is written the
/// copy is reserved against all three under one lock, so concurrent opens cannot together pass a
/// cap. When a cap would be passed, the oldest copies at least ``grace`` seconds old of whoever
/// holds the most there (the caller's own, for the caller's cap) are removed first; copies younger
/// than that are never removed (their app may not have opened them yet).
public struct InboxLimits: Sendable, Equatable {
    /// One app's Inbox (`MaxInboxBytes`).
    public var inboxBytes: Int64
    /// What one caller's documents may take in all Inboxes together (`MaxInboxBytes`).
    public var callerBytes: Int64
    /// All Inboxes together (4 × `MaxInboxBytes`).
    public var totalBytes: Int64
    /// Copies younger than this many seconds are never removed to make room: the smaller of one
    /// minute and the retention.
    public var grace: Int64
    /// Free space kept back on the Inboxes' file system; nil: ``freeSpaceFloor(fileSystemSize:)``.
    public var minimumFreeBytes: Int64?
    /// The file system must keep at least this fraction of its size free (1/20), capped at
    /// ``freeSpaceFloorCap``, after the copy.
    public static let freeSpaceFraction: Int64 = 20
    /// The most free space kept back (1 GiB).
    public static let freeSpaceFloorCap: Int64 = 1 << 30

    public init(inboxBytes: Int64, retention: Int64) {
        self.inboxBytes = inboxBytes
        self.callerBytes = inboxBytes
        self.totalBytes = inboxBytes > Int64.max / 4 ? Int64.max : inboxBytes * 4
        self.grace = max(0, min(60, retention))
    }

    /// The free space kept back on a file system of `size` bytes.
    public static func freeSpaceFloor(fileSystemSize size: Int64) -> Int64 {
        min(freeSpaceFloorCap, size / freeSpaceFraction)
    }
}

extension PolicyConfig {
    /// The Inboxes' limits under this config (`[Documents] MaxInboxBytes`, `Retention`).
    public var inboxLimits: InboxLimits { InboxLimits(inboxBytes: inboxBytes, retention: inboxRetention) }
}
