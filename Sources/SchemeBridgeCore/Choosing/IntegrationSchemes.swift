/// Which schemes integration may route through SchemeBridge's own entry (`EnableIntegration`,
/// `DisableIntegration`, `IntegrationStatus`, and new schemes while integration is on).
extension Broker {
    /// Every scheme with a handler now (SchemeBridge itself aside); `file` never.
    public var schemesWithHandlers: [String] {
        schemes().filter { !Policy.isNeverRouted($0) && router.effectiveDefault(forScheme: $0) != nil }
    }

    /// ``schemesWithHandlers`` without the reserved schemes: what integration takes by itself.
    public var integrationCandidates: [String] {
        let reserved = policy.current.reservedSchemes
        return schemesWithHandlers.filter { !Policy.isReserved($0, in: reserved) }
    }

    /// The schemes `names` asks to route (`[]`: every candidate, ``integrationCandidates``):
    /// `Failed` when SchemeBridge's own entry `ownID` is not installed (nothing could start
    /// it); each name a valid scheme, never `file` (`ReservedScheme`), with a handler (`NoHandler`).
    public func schemesToIntegrate(_ names: [String], ownID: String) throws(ServiceFailure) -> [String] {
        guard registry.entry(id: DesktopID(fileName: ownID)) != nil else {
            throw ServiceFailure(.failed, "SchemeBridge's own desktop entry \(ownID) is not installed, so browsers and xdg-open "
                + "could not start it; install it first (make install puts it in share/applications)")
        }
        var named: [String] = []
        for s in names {
            let scheme = try validScheme(s)
            guard !Policy.isNeverRouted(scheme) else { throw ServiceFailure(.reservedScheme, "file: is never routed through SchemeBridge") }
            guard router.effectiveDefault(forScheme: scheme) != nil else {
                throw ServiceFailure(.noHandler, "no application handles '\(scheme)'; nothing to route through SchemeBridge")
            }
            named.append(scheme)
        }
        return names.isEmpty ? integrationCandidates : named
    }

    /// The schemes `names` asks to give back, each a valid scheme; nil for `[]` (all).
    public func schemesToGiveBack(_ names: [String]) throws(ServiceFailure) -> [String]? {
        var named: [String] = []
        for s in names { named.append(try validScheme(s)) }
        return names.isEmpty ? nil : named
    }
}
