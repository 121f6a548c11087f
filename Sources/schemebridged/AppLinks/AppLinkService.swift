import DBus
import Glibc
import Logging
import SchemeBridgeCore
import Synchronization

/// Verified app links in the daemon (issue 41): the core's ``AppLinks`` (decisions from what is
/// known) and ``AppLinkVerifier`` (fetches in the background), kept fresh — at start, when the
/// registry changes, and when the earliest record expires. Nothing here is on the path of an open.
final class AppLinkService: Sendable {
    let links: AppLinks
    let verifier: AppLinkVerifier
    private let logger: Logger

    init(registry: Registry, environment: [String: String], policy: PolicyStore, logger: Logger) {
        links = AppLinks(registry: registry, environment: environment, config: { [policy] in policy.current.appLinks })
        let verifier = AppLinkVerifier(links: links)
        self.verifier = verifier
        self.logger = logger
        // Hosts that an open or a ResolveLink found claimed but not held yet: queued, logged.
        links.onUnverifiedClaim { [verifier, logger] hosts in
            logger.info("verifying app links of \(hosts.joined(separator: ", ")) (a link their apps claim was opened or resolved)")
            verifier.queue(hosts)
        }
    }

    /// Starts following the registry and the records' expiry (until the registry closes).
    func start() {
        let changes = links.registry.changes()
        Task.detached { [self] in
            links.readFlathubEvidence()
            refresh("start")
            for await _ in changes {
                links.readFlathubEvidence()
                refresh("an entry changed")
            }
        }
        Task.detached { [self] in
            while true {
                let now = Int64(Glibc.time(nil))
                let next = links.nextExpiry(links.hostsToVerify()).map { max($0 - now, 5) } ?? 3600
                try? await Task.sleep(for: .seconds(min(next, 3600)))
                if Task.isCancelled { return }
                refresh("a record expired")
            }
        }
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

    /// Queues the hosts that are due; never waits for them.
    func refresh(_ why: String) {
        let due = verifier.refresh()
        if !due.isEmpty { logger.info("verifying app links of \(due.joined(separator: ", ")) (\(why))") }
    }
}
