import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// `EnableIntegration`, `DisableIntegration` and `IntegrationStatus` over the core's
/// ``Integration``: which schemes may be routed through SchemeBridge's own entry, and keeping
/// new ones routed while integration is on.
final class IntegrationService: Sendable {
    let broker: Broker
    let integration: Integration
    let logger: Logger

    init(broker: Broker, logger: Logger) {
        self.broker = broker
        self.integration = Integration(directories: broker.registry.directories, ownID: Contract.ownDesktopID)
        self.logger = logger
    }

    /// Routes `schemes` (`[]`: every available scheme, and new ones from now on).
    func enable(_ schemes: [String]) async throws -> [String] {
        let named: [String]
        named = try broker.schemesToIntegrate(schemes, ownID: Contract.ownDesktopID)
        do {
            let outcome = try await integration.enable(named, all: schemes.isEmpty)
            if !outcome.schemes.isEmpty { logger.info("routing through SchemeBridge: \(outcome.schemes.joined(separator: " "))") }
            return outcome.schemes
        } catch {
            throw DBusError(.failed, "cannot change \(error.path): \(error.message)")
        }
    }

    /// Gives `schemes` back (`[]`: all, and integration is off); returns those given back.
    func disable(_ schemes: [String]) async throws -> [String] {
        let named: [String]?
        named = try broker.schemesToGiveBack(schemes)
        do {
            let outcome = try await integration.disable(named)
            if !outcome.changed.isEmpty {
                logger.notice("left alone (changed since SchemeBridge wrote them): \(outcome.changed.joined(separator: " "))")
            }
            return outcome.schemes
        } catch {
            throw DBusError(.failed, "cannot change \(error.path): \(error.message)")
        }
    }

    /// What is routed now (an edit stopped half-way is finished or undone first).
    func status() async throws -> IntegrationReport {
        do {
            let (state, routed, changed) = try await integration.status()
            let routedSet = Set(routed)
            return IntegrationReport(enabled: state.enabled, schemes: routed, changed: changed,
                                     notRouted: broker.schemesWithHandlers.filter { !routedSet.contains($0) }, list: integration.listPath)
        } catch {
            throw DBusError(.failed, error.description)
        }
    }

    /// While integration is on, routes schemes as their first handler appears: at start (what
    /// appeared while the service was not running), then on every registry change.
    func follow(_ changes: AsyncStream<Set<String>>) async {
        await catchUp()
        for await _ in changes { await catchUp() }
    }

    private func catchUp() async {
        do {
            let added = try await integration.follow { [broker] in broker.integrationCandidates }
            if !added.isEmpty { logger.info("routing new schemes through SchemeBridge: \(added.joined(separator: " "))") }
        } catch {
            logger.warning("cannot keep new schemes routed through SchemeBridge: \(error)")
        }
    }
}
