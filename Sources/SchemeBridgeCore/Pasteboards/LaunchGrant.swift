/// A read grant given by the broker to the handler it launched for a URL with the `pasteboard`
/// option: the spawned process (and what it runs), or the connection that owns the activated
/// bus name. Never stored on disk: the app id grant given with it is what outlives the launch.
public enum LaunchGrant: Sendable, Equatable {
    /// A spawned handler; dropped when it has exited (before its pid can be reused).
    case process(Int32)
    /// A D-Bus activated handler's unique name; dropped when it leaves the bus.
    case connection(String)
}
