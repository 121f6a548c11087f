import DBus
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgePortalStore
import LinuxSystem
import Logging
import ServiceLifecycle

/// Why the service could not start.
struct StartupError: Error, CustomStringConvertible {
    let description: String
}

/// The SchemeBridge session service: connects to the bus, exports its object, then owns
/// its well-known name, and runs its `LifecycleServices` until the bus goes away, the name is
/// taken over, or a shutdown is requested.
struct SchemeBridgeService: Service {
    let address: String
    let replace: Bool
    let environment: [String: String]
    let policyOverrides: @Sendable (inout PolicyConfig) -> Void
    let logger: Logger

    func run() async throws {
        // Connecting, then the devices' follower and two match rules (round trips, no registry needed) go on while the registry is built.
        async let connecting = Connection.connect(address: address, logger: logger)
        let started = ContinuousClock.now
        async let building = Self.registry(environment: environment, policyOverrides: policyOverrides, logger: logger)
        let connection: Connection
        do { connection = try await connecting } catch {
            throw StartupError(description: "cannot connect to the session bus at \(address): \(DBusError.from(error).message)")
        }
        // Everything the service follows is subscribed before it takes its name: the first call
        // can come (and the caller act on its answer, e.g. install an entry) the moment the name
        // is ours, and a registry change with no subscriber yet was never announced (seen beside
        // CPU hogs: a desktop file written right after the activating CanOpenURL became live,
        // but no HandlersChanged came, and integration would not have routed its scheme).
        let descriptors = DescriptorWork()
        let devices = DeviceService(connection: connection, environment: environment, descriptors: descriptors, logger: logger)
        async let following: Void = devices.start()
        defer { devices.stop() }
        async let losing = connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost", arg0: Contract.busName.rawValue))
        async let owning = BusDriver(connection).nameOwnerChanges()
        let (policy, registry) = await building
        defer { registry.close() }
        let services = Services(registry: registry, connection: connection, environment: environment, busAddress: address,
                                policy: policy, descriptors: descriptors, devices: devices, logger: logger)
        try connection.export(services.declarations(), at: Contract.objectPath)
        try connection.export([services.portal.declaration(), services.portalFiles.declaration()], at: PortalAppChooser.path)
        services.pasteboards.restore()
        services.deliverer.sweepInboxes(retention: policy.current.inboxRetention)
        // The routes the portal applies follow the config (its reload, and a watch: the portal's own path never asks us).
        let routes = PortalRouteResync.follower(registry: registry, routedSchemes: { [integration = services.integration] in (try? integration.integration.check().routed) ?? [] },
                                                store: { try PermissionStoreTable.store(busAddress: address) }, log: { logger.log($0, $1) })
        policy.onChange { _ in routes.request() }
        defer { routes.stop() }
        routes.start()
        services.opening.appLinks.start()  // app links verified in the background (AppLinks/AppLinkService.swift)
        let received = services.devices.engine.receivedShares()
        let changes = registry.changes()
        let integrationChanges = registry.changes()
        await following
        let (lost, owners) = try await (losing, owning)
        let flags: RequestNameFlags = replace ? [.doNotQueue, .replaceExisting, .allowReplacement] : [.doNotQueue, .allowReplacement]
        services.chooser.prepareSpareSheet()  // before the name: a call answered finds it decided
        let reply = try await connection.requestName(Contract.busName, flags: flags)
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            connection.close()
            throw StartupError(description: "another process already owns \(Contract.busName) on this bus (use --replace to take it over)")
        }
        logger.info("serving \(Contract.busName) at \(Contract.objectPath) as \(connection.uniqueName): \(registry.schemes.count) schemes, ready in \(ContinuousClock.now - started)")
        if environment["SCHEMEBRIDGE_PREFETCH"] != "0" { HotCode.load() }  // the loop's code asked of the caches at each wake, once found
        Task(executorPreference: connection.loopExecutor) { ThreadSlice.request(.microseconds(Int64(environment["SCHEMEBRIDGE_SLICE_US"] ?? "") ?? 100)) }  // woken ahead of busier threads
        let group = LifecycleServices.group([
            BusConnectionService(connection: connection, lost: lost, logger: logger),
            NameOwnerTracker(owners: owners, callers: services.callers, replies: services.replies, pasteboards: services.pasteboards.store),
            RegistryChangeAnnouncer(changes: changes, connection: connection, announcer: RegistryAnnouncer(broker: services.broker)),
            IntegrationFollower(changes: integrationChanges, integration: services.integration),
            DeviceReceiver(received: received, receiving: services.receiving, connection: connection),
            ReceiveStallWatcher(jobs: devices.engine.jobs, policy: policy, connection: connection),
        ], logger: logger)
        try await withGracefulShutdownHandler {
            try await group.run()
        } onGracefulShutdown: {
            logger.info("shutting down")
        }
        connection.close()
        logger.info("disconnected from the bus; stopped")
    }

    /// The policy (first: the registry resolves reserved schemes by its rule) and the registry, with one content-type database.
    static func registry(environment: [String: String], policyOverrides: @escaping @Sendable (inout PolicyConfig) -> Void,
                         logger: Logger) -> (PolicyStore, Registry) {
        let policy = PolicyStore(paths: PolicyStore.defaultPaths(directories: XDGDirectories(environment: environment)), overrides: policyOverrides,
                                 warn: { logger.warning("\($0)") })
        return (policy, Registry(environment: environment, reservedSchemes: policy.current.reservedSchemes,
                                 contentTypes: ContentTypeDatabase(environment: environment)) { logger.warning("\($0)") })
    }
}
