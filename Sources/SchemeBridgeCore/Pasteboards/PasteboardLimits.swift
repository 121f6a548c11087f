/// The limits of pasteboards (`[Pasteboards]` in the config file, ``PolicyConfig``).
public struct PasteboardLimits: Sendable, Equatable {
    /// `DefaultExpiry`: seconds a pasteboard lives when its creator does not say (10 minutes).
    public var defaultExpiry: UInt64 = 600
    /// `PersistentDefaultExpiry`: the same for a persistent one (7 days).
    public var persistentDefaultExpiry: UInt64 = 7 * 86_400
    /// `MaxExpiry`: the longest any pasteboard lives (7 days).
    public var maximumExpiry: UInt64 = 7 * 86_400
    /// `MaxTemporaryExpiry`: the longest a pasteboard that is not persistent lives (1 hour; at
    /// most 1 hour): memory held for a hand-off, not storage.
    public var maximumTemporaryExpiry: UInt64 = 3600
    /// `MaxPasteboardsPerApp`: pasteboards one owner may have at once.
    public var maximumPerOwner = 64
    /// `MaxBytesPerApp`: bytes of data one owner's pasteboards may hold together (2 GiB).
    public var maximumBytesPerOwner: Int64 = 2 << 30
    /// `MaxPasteboardsUnidentified`: pasteboards of all owners known only by an executable path
    /// (or not at all) together — a hard link of an interpreter is a new path, so these share
    /// one quota (as they share one launch-rate bucket); never more than one app's.
    public var maximumPerUnidentified = 64
    /// `MaxBytesUnidentified`: their data together (256 MiB); never more than one app's.
    public var maximumBytesPerUnidentified: Int64 = 256 << 20
    /// `MaxBytes`: bytes of data of all owners' pasteboards together (8 GiB).
    public var maximumTotalBytes: Int64 = 8 << 30
    /// `MaxPasteboards`: pasteboards of all owners together.
    public var maximumTotal = 4096
    /// Items in one pasteboard.
    public var maximumItems = 256
    /// Types in one item.
    public var maximumTypesPerItem = 64
    /// Grants (app id patterns) on one pasteboard.
    public var maximumGrants = 256
    /// The largest value `SetItems` takes as `ay`; more goes by descriptor (`h`).
    public var maximumInlineBytes = 16 << 20
    /// The largest item `ReadBytes` returns; more is read with `Read` (a descriptor).
    public var maximumReadBytes: Int64 = 4 << 20

    public init() {}

    /// The longest a pasteboard lives: `MaxExpiry`, and `MaxTemporaryExpiry` unless persistent.
    public func longestLife(persistent: Bool) -> UInt64 {
        persistent ? maximumExpiry : min(maximumExpiry, maximumTemporaryExpiry)
    }

    /// The count and byte quota of quota key `key` (``PasteboardQuotaKey``).
    public func quota(of key: PasteboardQuotaKey) -> (count: Int, bytes: Int64) {
        guard key == .shared else { return (maximumPerOwner, maximumBytesPerOwner) }
        return (min(maximumPerOwner, maximumPerUnidentified), min(maximumBytesPerOwner, maximumBytesPerUnidentified))
    }
}

extension SealedData {
    /// `ReadBytes`' answer for item `item`'s `type`: its bytes when they are at most
    /// ``PasteboardLimits/maximumReadBytes``, else `LimitsExceeded` (read it with `Read`).
    public func bytesForReading(item: Int, type: String, limits: PasteboardLimits) throws(PasteboardError) -> [UInt8] {
        guard size <= limits.maximumReadBytes else {
            throw PasteboardError(.limitsExceeded, "item \(item)'s '\(type)' is \(size) bytes; ReadBytes returns at most \(limits.maximumReadBytes): use Read, which returns a file descriptor")
        }
        return try bytes()
    }
}
