import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// The composition root: builds the core's ``Broker`` and every adapter, each holding only what
/// it uses — ``Opening`` (URLs and documents), ``Sharing``, ``Picking``, ``Receiving`` (what
/// devices send), the queries (the core's ``CallerQueries``), the pasteboards — over the shared parts (the callers, the one
/// ``Launcher``, the chooser, the reply requests, the document hand-off). No policy is decided
/// here or in the adapters: they decode, ask the core, and encode.
struct Services {
    let broker: Broker
    let connection: Connection
    let callers: Callers
    let replies: ReplyService
    let pasteboards: PasteboardService
    let chooser: ChooserService
    let integration: IntegrationService
    let devices: DeviceService
    let deliverer: DocumentDeliverer
    let opening: Opening
    let sharing: Sharing
    let picking: Picking
    let receiving: Receiving
    let queries: CallerQueries
    /// The portal's `AppChooser` backend (issue 40), on its own object.
    let portal: PortalAppChooser
    /// The portal's `FileChooser` backend (issue 40), on the same object.
    let portalFiles: PortalFileChooser

    init(registry: Registry, connection: Connection, environment: [String: String], busAddress: String,
         policy: PolicyStore, descriptors: DescriptorWork, devices: DeviceService, logger: Logger) {
        if let ended = ChildReaper.shared.host() { try? connection.watchReadable(ended) { ChildReaper.shared.reapEnded() } }  // on the loop, no thread
        let documents = Documents(registry: registry, environment: environment)
        let appLinks = AppLinkService(registry: registry, environment: environment, policy: policy, logger: logger)
        let broker = Broker(registry: registry, policy: policy, ownDesktopIDs: [DesktopID(fileName: Contract.ownDesktopID)],
                            choices: ChoiceStore(path: ChoiceStore.defaultPath(directories: registry.directories), warn: { logger.warning("\($0)") }),
                            documents: documents, appLinks: appLinks.links)
        let callers = Callers(connection: connection, registry: registry, logger: logger)
        let env = LaunchContext.baseEnvironment(environment, busAddress: busAddress)
        let splash = SplashHelper(environment: env, log: { warning, message in warning ? logger.warning("\(message)") : logger.notice("\(message)") })
        let chooser = ChooserService(broker: broker, port: ChooserDialogs(connection: connection), environment: DialogPortals.environment(env),
                                     busName: ChooserContract.busName.rawValue, log: { logger.log($0, $1) })
        let replies = ReplyService(connection: connection, callers: callers)
        let store = PasteboardStore(disk: PasteboardDisk(environment: environment), limits: { [policy] in policy.current.pasteboards })
        let pasteboards = PasteboardService(store: store, connection: connection, callers: callers,
                                            descriptors: descriptors, logger: logger)
        let starter = HandlerStarter(baseEnvironment: env, callbackRoutes: broker.callbackRoutes, pasteboards: store, log: { logger.info("\($0)") })
        let launcher = Launcher(starter: starter, port: ApplicationBus(connection: connection, callers: callers, logger: logger), splash: splash, watcher: replies,
                                usedActivationTokens: broker.usedActivationTokens)
        let deliverer = DocumentDeliverer(documents: documents, descriptors: descriptors, portal: DocumentPortalHandOff(connection: connection),
                                          log: { logger.info("\($0)") })
        let scale = SessionScale(environment: environment, splash: splash, log: { logger.info("\($0)") })
        let integration = IntegrationService(broker: broker, ownID: Contract.ownDesktopID, log: { logger.log($0, $1) })
        let opening = Opening(broker: broker, callers: callers, launcher: launcher, chooser: chooser, replies: replies, pasteboards: pasteboards,
                              deliverer: deliverer, announcer: Announcer(connection: connection, policy: policy), scale: scale,
                              appLinks: appLinks, logger: logger)
        (self.broker, self.connection, self.callers, self.replies, self.pasteboards) = (broker, connection, callers, replies, pasteboards)
        (self.chooser, self.integration, self.devices, self.deliverer, self.opening) = (chooser, integration, devices, deliverer, opening)
        sharing = Sharing(broker: broker, callers: callers, chooser: chooser, replies: replies, pasteboards: pasteboards,
                          deliverer: deliverer, devices: devices, launcher: launcher, logger: logger)
        picking = Picking(broker: broker, callers: callers, chooser: chooser, replies: replies, launcher: launcher, documents: documents,
                          descriptors: descriptors, logger: logger)
        receiving = Receiving(policy: policy, devices: devices, descriptors: descriptors, opening: opening, logger: logger)
        queries = CallerQueries(broker: broker, callers: callers, integration: integration, documents: documents, descriptors: descriptors,
                                sessionScale: { scale.current })
        portal = PortalAppChooser(broker: broker, connection: connection, chooser: chooser, launcher: launcher, scale: scale, logger: logger)
        portalFiles = PortalFileChooser(broker: broker, connection: connection, chooser: chooser, picking: picking, frontend: portal,
                                        environment: environment, logger: logger)
    }

    /// The interfaces on the main object.
    func declarations() -> [Interface] {
        [MainInterface(opening: opening, queries: queries, picking: picking, replies: replies).declaration(),
         pasteboards.declaration(), ShareInterface(sharing: sharing).declaration()]
    }
}
