import DBus
import Logging
import SchemeBridgeCore
import Synchronization

/// Verified app links in the daemon (issue 41): the core's ``AppLinks`` (decisions from what is
/// known) and ``AppLinkVerifier`` (fetches in the background, kept fresh by
/// ``AppLinkVerifier/keepFresh(following:)``). Nothing here is on the path of an open.
final class AppLinkService: Sendable {
    let links: AppLinks
    let verifier: AppLinkVerifier

    init(registry: Registry, environment: [String: String], policy: PolicyStore, logger: Logger) {
        links = AppLinks(registry: registry, environment: environment, config: { [policy] in policy.current.appLinks })
        verifier = AppLinkVerifier(links: links, log: { [logger] in logger.info("\($0)") })
    }

    /// Starts following the registry and the records' expiry (until the registry closes).
    func start() {
        let changes = links.registry.changes(appLinks: true)
        Task.detached { [verifier] in await verifier.keepFresh(following: changes) }
    }

    /// Records as `evidence` values, by host, built once per record (``encodedEvidence(_:)``).
    private let evidenceCache = Mutex<[String: (record: AppLinkRecord, value: DBusValue)]>([:])

    /// `record` as `ResolveLink`'s `evidence` (`{}` for none): built when the host's record
    /// changed, else the value built before (a `ResolveLink` from the cache builds no dictionary).
    func encodedEvidence(_ record: AppLinkRecord?) -> DBusValue {
        guard let record else { return Self.noEvidence }
        if let hit = evidenceCache.withLock({ $0[record.host] }), hit.record == record { return hit.value }
        let value = DBusValue.vardict(MainInterface.evidence(record))
        evidenceCache.withLock { cache in
            if cache.count >= 1024 { cache.removeAll() }
            cache[record.host] = (record, value)
        }
        return value
    }

    private static let noEvidence = DBusValue.vardict([:])
}
