extension Broker {
    /// The handler `OpenURL` would use for `scheme` by default and where that default comes from
    /// (``DefaultOrigin``), as `scope` may learn it; nil when none.
    public func defaultHandlerOrigin(forScheme scheme: String, scope: QueryScope = .all) throws(OpenFailure) -> (handler: DesktopID, origin: DefaultOrigin)? {
        let s = try validScheme(scheme)
        guard scope.allows(s), let entry = router.effectiveDefault(forScheme: s) else { return nil }
        return (entry.id, registry.defaultOrigin(of: entry.id, forScheme: s))
    }

    /// The handler `OpenFile` would use for `type` by default, the type along its parent chain
    /// whose handlers those are, and where that default comes from; nil when none.
    public func defaultHandlerOrigin(forType type: String) -> (handler: DesktopID, type: String, origin: DefaultOrigin)? {
        guard let found = documents?.handlers(forType: type),
              let first = found.handlers.first(where: { eligibleEntry($0) != nil }) else { return nil }
        return (first, found.type, registry.defaultOrigin(of: first, forType: found.type))
    }
}
