/// The limits of pasteboards (`[Pasteboards]` in the config file, ``PolicyConfig``).
public struct PasteboardLimits: Sendable, Equatable {
    /// `DefaultExpiry`: seconds a pasteboard lives when its creator does not say (10 minutes).
    public var defaultExpiry: UInt64 = 600
    /// `PersistentDefaultExpiry`: the same for a persistent one (7 days).
    public var persistentDefaultExpiry: UInt64 = 7 * 86_400
    /// `MaxExpiry`: the longest any pasteboard lives (7 days).
    public var maximumExpiry: UInt64 = 7 * 86_400
    /// `MaxPasteboardsPerApp`: pasteboards one owner may have at once.
    public var maximumPerOwner = 64
    /// `MaxBytesPerApp`: bytes of data one owner's pasteboards may hold together (2 GiB).
    public var maximumBytesPerOwner: Int64 = 2 << 30
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
}
