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

    /// `ResolveLink`'s replies, marshalled once each (``encodedAnswer(_:)``).
    private let answers = Mutex<[AppLinkResolution: EncodedReply]>([:])

    /// `r` as `ResolveLink`'s reply: marshalled the first time, then copied (a `ResolveLink`
    /// answered from the cache builds no dictionary). At most 256 kept; a full cache starts again.
    func encodedAnswer(_ r: AppLinkResolution) throws(DBusError) -> EncodedReply {
        if let hit = answers.withLock({ $0[r] }) { return hit }
        let reply = try EncodedReply([MainInterface.linkAnswer(r)])
        answers.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[r] = reply
        }
        return reply
    }
}
