/// Query privacy (`[Policy] QueryPrivacy=true`) for answers given before, or without, knowing who
/// asks: a query from a caller not identified yet, and broadcasts every listener receives.
extension Broker {
    /// The scope of a query from a caller the service knows as `known` now (nil: not identified
    /// yet). Privacy off: everything, without identifying anyone. On: nil for a caller not
    /// identified yet (the answer waits for identification), else ``queryScope(for:)``.
    public func queryScopeNow(known: Caller?) -> QueryScope? {
        guard queryPrivacy else { return .all }
        return known.map { queryScope(for: $0) }
    }

    /// What the service may broadcast when the handlers of `changed` schemes changed and the
    /// installed schemes are now `schemes`: privacy off, both; on, neither (`HandlersChanged`
    /// names no scheme and the `Schemes` property is only invalidated, so no listener learns
    /// a scheme it did not declare).
    public func broadcast(changed: Set<String>, schemes: [String]) -> RegistryBroadcast {
        queryPrivacy ? RegistryBroadcast(changedSchemes: [], schemes: nil) : RegistryBroadcast(changedSchemes: changed.sorted(), schemes: schemes)
    }
}

/// What a registry change may tell every listener (``Broker/broadcast(changed:schemes:)``).
public struct RegistryBroadcast: Equatable, Sendable {
    /// The schemes `HandlersChanged` names, sorted (empty under query privacy).
    public var changedSchemes: [String]
    /// The new `Schemes` property for `PropertiesChanged`; nil under query privacy (the
    /// property is then only invalidated).
    public var schemes: [String]?

    public init(changedSchemes: [String], schemes: [String]?) {
        self.changedSchemes = changedSchemes
        self.schemes = schemes
    }
}
