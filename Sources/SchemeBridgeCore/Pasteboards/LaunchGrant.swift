/// Who calls, as far as pasteboards care: the connection, the app id identification found, and
/// the process lineage (a handler the broker started for a pasteboard, or a process it runs).
public struct PasteboardCaller: Sendable, Equatable {
    /// The unique bus name of the connection.
    public var busName: String
    /// The app id (nil: unidentified).
    public var appID: String?
    /// The caller's process and its ancestors, nearest first.
    public var lineage: [Int32]

    public init(busName: String, appID: String?, lineage: [Int32] = []) {
        self.busName = busName
        self.appID = appID
        self.lineage = lineage
    }
}

/// A read grant given by the broker to the handler it launched for a URL with the `pasteboard`
/// option: the spawned process (and what it runs), or the connection that owns the activated
/// bus name. Never stored on disk: the app id grant given with it is what outlives the launch.
public enum LaunchGrant: Sendable, Equatable {
    /// A spawned handler; dropped when it has exited (before its pid can be reused).
    case process(Int32)
    /// A D-Bus activated handler's unique name; dropped when it leaves the bus.
    case connection(String)
}
