import DBus
import SchemeBridgeContract
import SchemeBridgeCore
import Logging
import ServiceLifecycle

/// Why the service could not start.
struct StartupError: Error, CustomStringConvertible {
    let description: String
}

/// The SchemeBridge session service: connects to the bus, exports its object, then owns
/// its well-known name, and runs until the bus goes away or a shutdown is requested.
struct BridgeService: Service {
    let address: String
    let replace: Bool
    let environment: [String: String]
    let policyOverrides: @Sendable (inout PolicyConfig) -> Void
    let logger: Logger

    func run() async throws {
        let connection: Connection
        do {
            connection = try await Connection.connect(address: address, logger: logger)
        } catch {
            throw StartupError(description: "cannot connect to the session bus at \(address): \(error.message)")
        }
        let started = ContinuousClock.now
        let registryLogger = logger
        // The policy first: the registry resolves reserved schemes by its rule. One content-type
        // database for the registry (aliases) and the documents (detection).
        let policy = PolicyStore(paths: PolicyStore.defaultPaths(directories: XDGDirectories(environment: environment)), overrides: policyOverrides,
                                 warn: { registryLogger.warning("\($0)") })
        let registry = Registry(environment: environment, reservedSchemes: policy.current.reservedSchemes,
                                contentTypes: ContentTypeDatabase(environment: environment)) { warning in
            registryLogger.warning("\(warning)")
        }
        defer { registry.close() }
        let bridge = Bridge(registry: registry, connection: connection, environment: environment, busAddress: address,
                            policy: policy, logger: logger)
        try connection.export([BridgeInterface(bridge: bridge).declaration(), bridge.pasteboards.declaration()], at: Contract.objectPath)
        bridge.pasteboards.restore()
        bridge.sweepInboxes(retention: bridge.broker.policy.current.inboxRetention)
        // Everything the service follows is subscribed before it takes its name: the first call
        // can come (and the caller act on its answer, e.g. install an entry) the moment the name
        // is ours, and a registry change with no subscriber yet was never announced (seen beside
        // CPU hogs: a desktop file written right after the activating CanOpenURL became live,
        // but no HandlersChanged came, and integration would not have routed its scheme).
        let changes = registry.changes()
        let integrationChanges = registry.changes()
        let lost = try await connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost", arg0: Contract.busName.rawValue))
        let owners = try await BusDriver(connection).nameOwnerChanges()
        let flags: RequestNameFlags = replace ? [.doNotQueue, .replaceExisting, .allowReplacement] : [.doNotQueue, .allowReplacement]
        let reply = try await connection.requestName(Contract.busName, flags: flags)
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            connection.close()
            throw StartupError(description: "another process already owns \(Contract.busName) on this bus (use --replace to take it over)")
        }
        logger.info("serving \(Contract.busName) at \(Contract.objectPath) as \(connection.uniqueName): \(registry.schemes.count) schemes, ready in \(ContinuousClock.now - started)")
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await connection.waitUntilDisconnected() }
                group.addTask {
                    // Callers that left the bus are forgotten. New connections cost nothing: a
                    // caller is identified at its first call (a query under query privacy waits
                    // for it), never because it appeared on the bus.
                    for await change in owners where change.isConnectionLeaving {
                        let name = change.name
                        bridge.callers.forget(name)
                        bridge.replies.nameLeft(name)
                        bridge.pasteboards.store.connectionLeft(name)
                    }
                }
                group.addTask {
                    // Registry changes become HandlersChanged and a Schemes PropertiesChanged.
                    var lastSchemes = registry.schemes
                    for await changed in changes {
                        // Under query privacy the broadcasts name no scheme: "something changed, ask again".
                        let privacy = bridge.broker.queryPrivacy
                        try? connection.emit(HandlersChanged(schemes: privacy ? [] : changed.sorted()))
                        let schemes = registry.schemes
                        if schemes != lastSchemes {
                            lastSchemes = schemes
                            try? connection.emitPropertiesChanged(
                                path: Contract.objectPath, interface: Contract.interface,
                                changed: privacy ? [:] : [ContractProperty.schemes.rawValue: .strings(schemes)],
                                invalidated: privacy ? [ContractProperty.schemes.rawValue] : [])
                        }
                    }
                }
                // While integration is on, new schemes are routed through us as handlers appear.
                group.addTask { await bridge.integration.follow(integrationChanges) }
                group.addTask {
                    for await _ in lost {
                        logger.notice("\(Contract.busName) was taken over by another process; exiting")
                        break
                    }
                }
                await group.next()
                group.cancelAll()
                connection.close()
            }
        } onGracefulShutdown: {
            logger.info("shutting down")
            connection.close()
        }
        logger.info("disconnected from the bus; stopped")
    }
}
