import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices
import Synchronization

/// The D-Bus adapter over the core's ``Broker`` and the daemon's composition root: its
/// initializer builds every service (``Broker``, ``Documents``, ``ReplyService``,
/// ``PasteboardService``, ``ChooserService``, ``IntegrationService``, the presenter). It decodes
/// calls, identifies callers, asks the broker, starts what the broker admitted (spawn or D-Bus
/// activation, with the launch image), and reports every outcome with `URLHandled` / `URLFailed`
/// (``announce(_:to:)``). No policy is decided here. Queries: `BridgeQueries.swift`; opening a URL:
/// `BridgeOpening.swift`; starting a handler: `BridgeLaunching.swift`; documents:
/// `BridgeDocuments.swift`; the handler decision: `BridgeDeciding.swift`.
final class Bridge: Sendable {
    let broker: Broker
    let connection: Connection
    let callers: CallerCache
    /// Starting handlers: which process is watched, grants, recent launches (the core's rules).
    let starter: HandlerStarter
    let logger: Logger
    let searchPath: [String]
    let launcher = ProcessLauncher()
    let presenter: LaunchImagePresenter
    /// Requests waiting for a handler's reply (`OpenURLWithReply`).
    let replies: ReplyService
    /// The pasteboards (`Pasteboards1` and each pasteboard's object).
    let pasteboards: PasteboardService
    /// The `ask` option's choosers (`ChooserService.swift`).
    let choosers: ChooserService
    /// SchemeBridge as the desktop's scheme handler (`IntegrationService.swift`).
    let integration: IntegrationService
    /// Threads for reading callers' descriptors (pasteboard data, documents).
    let descriptors = DescriptorWork()
    /// Content types, handlers by type and the Inboxes.
    let documents: Documents
    /// When the Inboxes are swept (the core's rule: at most once a minute).
    let inboxSweeps = InboxSweepSchedule()
    /// Nearby devices: the KDE Connect engine and the outbox (`DeviceService.swift`).
    let devices: DeviceService
    /// The session's display scale (GDK_SCALE, QT_SCALE_FACTOR; Xft.dpi once known).
    let sessionScale: Atomic<Int>
    /// Verified app links (`AppLinkService.swift`).
    let appLinks: AppLinkService

    var registry: Registry { broker.registry }
    /// The environment handed to spawned handlers and helpers (before a launch context's variables).
    var childEnvironment: [String: String] { starter.baseEnvironment }

    init(registry: Registry, connection: Connection, environment: [String: String], busAddress: String,
         policy: PolicyStore, logger: Logger) {
        let documents = Documents(types: registry.contentTypes ?? ContentTypeDatabase(environment: environment), inbox: Inbox(environment: environment),
                                  handlersAlongChain: { [registry] chain in
                                      let found = registry.resolution(alongChain: chain)
                                      return (found.type, found.resolution.handlers)
                                  })
        self.documents = documents
        self.broker = Broker(registry: registry, policy: policy, ownDesktopIDs: [Contract.ownDesktopID],
                             choices: ChoiceStore(path: ChoiceStore.defaultPath(directories: registry.directories), warn: { logger.warning("\($0)") }),
                             documents: documents)
        self.connection = connection
        self.logger = logger
        self.callers = CallerCache(logger: logger)
        let env = LaunchContext.baseEnvironment(environment, busAddress: busAddress)
        self.searchPath = registry.directories.executableSearchPath
        self.presenter = LaunchImagePresenter(connection: connection, environment: env, logger: logger)
        self.choosers = ChooserService(broker: broker, connection: connection, environment: env, logger: logger)
        self.integration = IntegrationService(broker: broker, logger: logger)
        self.devices = DeviceService(connection: connection, environment: environment, descriptors: descriptors, logger: logger)
        self.replies = ReplyService(connection: connection, logger: logger)
        let store = PasteboardStore(disk: PasteboardDisk(environment: environment), limits: { [policy] in policy.current.pasteboards })
        self.pasteboards = PasteboardService(store: store, connection: connection, callers: callers, registry: registry,
                                             descriptors: descriptors, logger: logger)
        self.appLinks = AppLinkService(registry: registry, environment: environment, policy: policy, logger: logger)
        self.starter = HandlerStarter(baseEnvironment: env, callbackRoutes: broker.callbackRoutes, pasteboards: store, log: { logger.info("\($0)") })
        // GDK_SCALE/QT_SCALE_FACTOR win; else the display's Xft.dpi, learned in the background.
        let explicitScale = DisplayScale.set(by: environment)
        self.sessionScale = Atomic(explicitScale ?? 1)
        if explicitScale == nil {
            Task.detached { [self] in
                guard let dpi = await presenter.xftDPI() else { return }
                let s = DisplayScale.from(environment: [:], xftDPI: dpi)
                sessionScale.store(s, ordering: .relaxed)
                logger.info("display scale \(s) (Xft.dpi \(dpi))")
            }
        }
    }

    // MARK: helpers

    /// The caller `known` as the connection `sender` (the cache keeps the bus name already).
    static func caller(_ sender: String, _ known: CallerCache.Caller) -> Caller {
        var caller = known
        caller.busName = sender
        return caller
    }

    /// A URL safe to put in a log line or a signal: valid UTF-8 without NUL, at most 64 KiB.
    static func sanitized(_ url: String) -> String {
        let s = url.utf8.count > SchemeURL.maximumByteCount ? String(decoding: url.utf8.prefix(SchemeURL.maximumByteCount), as: UTF8.self) : url
        return s.utf8.contains(0) ? String(s.unicodeScalars.filter { $0 != "\0" }) : s
    }

    /// Runs an async core call, turning its failure into the contract's D-Bus error.
    static func adaptAsync<T>(_ body: () async throws(OpenFailure) -> T) async throws(DBusError) -> T {
        do { return try await body() } catch { throw DBusError(error) }
    }

    /// Runs a core call, turning its failure into the contract's D-Bus error.
    static func adapt<T>(_ body: () throws(OpenFailure) -> T) throws(DBusError) -> T {
        do { return try body() } catch { throw DBusError(error) }
    }
}
