import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices
import ServiceLifecycle

/// The small services `SchemeBridgeService` runs once the name is owned, started in the order given;
/// a `ServiceGroup` shuts them down in reverse, so the connection, first, is closed last. Only
/// the connection's end (the bus gone, the name taken over, a shutdown) ends the group: a
/// follower whose stream ends with the connection waits to be shut down, as a `ServiceGroup`
/// counts any other service ending during its shutdown as a failure.
enum LifecycleServices {
    /// The group of `services`, ending gracefully when one of them ends.
    static func group(_ services: [any Service], logger: Logger) -> ServiceGroup {
        ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                                           failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: name(of: $0)) },
            logger: logger))
    }

    /// The name a service goes by in the group's log lines: its type's. (Without a name the
    /// group describes the service with `"\(service)"`, a reflection of every stored property —
    /// the environment, the whole service — that cost ~7% of a warm start's CPU.)
    static func name(of service: any Service) -> String {
        String(describing: type(of: service))
    }

    /// Returns once the group shuts this service down.
    static func untilShutdown() async {
        try? await gracefulShutdown()
    }
}

/// The service's bus connection: runs until the bus goes away, or until another process takes
/// the name over (then it is closed, and so the group ends); closed on graceful shutdown.
struct BusConnectionService: Service {
    let connection: Connection
    /// `NameLost` for our name.
    let lost: AsyncStream<Message>
    let logger: Logger

    func run() async {
        let (connection, lost, logger) = (connection, lost, logger)
        let takenOver = Task {
            for await _ in lost {
                logger.notice("\(Contract.busName) was taken over by another process; exiting")
                connection.close()
                break
            }
        }
        await withGracefulShutdownHandler {
            await connection.waitUntilDisconnected()
        } onGracefulShutdown: {
            connection.close()
        }
        takenOver.cancel()
    }
}

/// Callers that left the bus are forgotten: their identity, their reply requests, their
/// pasteboards' connection grants. New connections cost nothing: a caller is identified at its
/// first call (a query under query privacy waits for it), never because it appeared on the bus.
struct NameOwnerTracker: Service {
    let owners: AsyncCompactMapSequence<AsyncStream<Message>, NameOwnerChanged>
    let callers: CallerCache
    let replies: ReplyService
    let pasteboards: PasteboardStore

    func run() async {
        for await change in owners.cancelOnGracefulShutdown() where change.isConnectionLeaving {
            let name = change.name
            callers.forget(name)
            replies.nameLeft(name)
            pasteboards.connectionLeft(name)
        }
        await LifecycleServices.untilShutdown()
    }
}

/// Registry changes become `HandlersChanged` and a `Schemes` `PropertiesChanged`, as the core's
/// ``RegistryAnnouncer`` says (under query privacy the broadcasts name no scheme).
struct RegistryChangeAnnouncer: Service {
    let changes: AsyncStream<Set<String>>
    let connection: Connection
    let announcer: RegistryAnnouncer

    func run() async {
        for await changed in changes.cancelOnGracefulShutdown() {
            let announced = announcer.announce(changed)
            try? connection.emit(HandlersChanged(schemes: announced.changedSchemes))
            guard let schemes = announced.schemes else { continue }
            let name = ContractProperty.schemes.rawValue
            try? connection.emitPropertiesChanged(path: Contract.objectPath, interface: Contract.interface,
                                                  changed: schemes.value.map { [name: .strings($0)] } ?? [:], invalidated: schemes.value == nil ? [name] : [])
        }
        await LifecycleServices.untilShutdown()
    }
}

/// While integration is on, new schemes are routed through SchemeBridge as handlers appear.
struct IntegrationFollower: Service {
    let changes: AsyncStream<Set<String>>
    let integration: IntegrationService

    func run() async {
        await cancelWhenGracefulShutdown { [changes, integration] in await integration.follow(changes) }
        await LifecycleServices.untilShutdown()
    }
}

/// What devices send, grouped into transfers, each one notification (``ReceivedNotifier`` over ``Receiving``,
/// the core's ``ReceivedTransfers``), taken in arrival order. Transfers are presented one at a
/// time (one "Open in…" at a time where there is no notification server), and the engine's caller
/// never holds more than one of the descriptor threads. The engine keeps the latest 256 not yet taken.
struct DeviceReceiver: Service {
    let received: AsyncStream<ReceivedFromDevice>
    let receiving: Receiving
    let connection: Connection

    func run() async {
        let port = receiving
        let notifier = port.notifier()
        let answers = await port.follow(notifier)
        for await share in received.cancelOnGracefulShutdown() {
            await notifier.receive(share)
        }
        answers?.cancel()
        await notifier.stop()
        await LifecycleServices.untilShutdown()
    }
}

/// Transfers from devices that stopped moving, told of while the engine's job reports come here
/// (``KDEConnectJobs/watchReceiving(quiet:port:)``, `[Devices] ReceiveStall` read at each look).
struct ReceiveStallWatcher: Service {
    let jobs: KDEConnectJobs
    let policy: PolicyStore
    let connection: Connection

    func run() async {
        if jobs.isServing {
            let port = ReceiveStallNotices(connection: connection)
            await cancelWhenGracefulShutdown { [jobs, policy] in
                await jobs.watchReceiving(quiet: { .seconds(policy.current.receiveStall) }, port: port)
            }
        }
        await LifecycleServices.untilShutdown()
    }
}
