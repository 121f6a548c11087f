/// `EnableIntegration`, `DisableIntegration` and `IntegrationStatus` over ``Integration``: which
/// schemes may be routed through SchemeBridge's own entry (``Broker/schemesToIntegrate(_:ownID:)``,
/// ``Broker/schemesToGiveBack(_:)``), and keeping new ones routed while integration is on.
/// A file that cannot be changed is `Failed`, naming it.
public final class IntegrationService: Sendable {
    public let broker: Broker
    public let integration: Integration
    /// Where what changed is told.
    let log: @Sendable (ServiceLogLevel, String) -> Void

    /// What is routed now.
    public struct Status: Sendable, Equatable {
        /// Every non-reserved scheme is routed, new ones as they appear.
        public var enabled: Bool
        /// The schemes routed through SchemeBridge.
        public var routed: [String]
        /// Schemes whose line SchemeBridge wrote was changed since by someone else (left alone).
        public var changed: [String]
        /// Schemes with a handler that are not routed.
        public var notRouted: [String]
        /// The `mimeapps.list` written.
        public var list: String
    }

    /// `ownID`: SchemeBridge's own desktop id.
    public init(broker: Broker, ownID: String, log: @escaping @Sendable (ServiceLogLevel, String) -> Void) {
        self.broker = broker
        self.integration = Integration(directories: broker.registry.directories, ownID: ownID)
        self.log = log
    }

    /// Routes `schemes` (`[]`: every available scheme, and new ones from now on); returns those routed.
    public func enable(_ schemes: [String]) async throws(ServiceFailure) -> [String] {
        let named = try broker.schemesToIntegrate(schemes, ownID: integration.ownID)
        do {
            let outcome = try await integration.enable(named, all: schemes.isEmpty)
            if !outcome.schemes.isEmpty { log(.info, "routing through SchemeBridge: \(outcome.schemes.joined(separator: " "))") }
            return outcome.schemes
        } catch {
            throw ServiceFailure(.failed, "cannot change \(error.path): \(error.message)")
        }
    }

    /// Gives `schemes` back (`[]`: all, and integration is off); returns those given back.
    public func disable(_ schemes: [String]) async throws(ServiceFailure) -> [String] {
        let named = try broker.schemesToGiveBack(schemes)
        do {
            let outcome = try await integration.disable(named)
            if !outcome.changed.isEmpty { log(.notice, "left alone (changed since SchemeBridge wrote them): \(outcome.changed.joined(separator: " "))") }
            return outcome.schemes
        } catch {
            throw ServiceFailure(.failed, "cannot change \(error.path): \(error.message)")
        }
    }

    /// What is routed now (an edit stopped half-way is finished or undone first).
    public func status() async throws(ServiceFailure) -> Status {
        do {
            let (state, routed, changed) = try await integration.status()
            let routedSet = Set(routed)
            return Status(enabled: state.enabled, routed: routed, changed: changed,
                          notRouted: broker.schemesWithHandlers.filter { !routedSet.contains($0) }, list: integration.listPath)
        } catch {
            throw ServiceFailure(.failed, error.description)
        }
    }

    /// `SetDefaultHandler` of a scheme routed through SchemeBridge: it stays routed, SchemeBridge
    /// first, then `desktopID` (a failure is logged: the default is set either way).
    public func keepRouted(_ scheme: String, newDefault desktopID: DesktopID) async {
        let key = (try? broker.validScheme(scheme)) ?? scheme
        do {
            if try await integration.keepRouted(key, newDefault: desktopID) { log(.info, "\(key) stays routed through SchemeBridge, then \(desktopID)") }
        } catch {
            log(.warning, "the default of \(key) is \(desktopID), but keeping it routed through SchemeBridge failed: \(error)")
        }
    }

    /// While integration is on, routes schemes as their first handler appears: at start (what
    /// appeared while the service was not running), then on every registry change.
    public func follow(_ changes: AsyncStream<Set<String>>) async {
        await catchUp()
        for await _ in changes { await catchUp() }
    }

    private func catchUp() async {
        do {
            let added = try await integration.follow { [broker] in broker.integrationCandidates }
            if !added.isEmpty { log(.info, "routing new schemes through SchemeBridge: \(added.joined(separator: " "))") }
        } catch {
            log(.warning, "cannot keep new schemes routed through SchemeBridge: \(error)")
        }
    }
}
