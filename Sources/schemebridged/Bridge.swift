import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// The D-Bus adapter over the core's ``Broker``: it decodes calls, identifies callers, asks the
/// broker, starts what the broker admitted (spawn or D-Bus activation, with the launch image),
/// and reports every outcome with `URLHandled` / `URLFailed` (``announce(_:to:)``). No policy is decided here.
final class Bridge: Sendable {
    let broker: Broker
    let connection: Connection
    let callers: CallerCache
    /// The handlers started recently, for run-time loop safety.
    let recentLaunches = RecentLaunches()
    let logger: Logger
    /// The environment handed to spawned handlers (before the launch context's variables).
    let childEnvironment: [String: String]
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
    /// When the Inboxes were last swept (seconds since the epoch).
    let inboxSweep = Atomic<Int64>(0)
    /// The session's display scale (GDK_SCALE, QT_SCALE_FACTOR; Xft.dpi once known).
    let sessionScale: Atomic<Int>

    var registry: Registry { broker.registry }

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
        self.childEnvironment = env
        self.searchPath = registry.directories.executableSearchPath
        self.presenter = LaunchImagePresenter(connection: connection, environment: env, logger: logger)
        self.choosers = ChooserService(broker: broker, connection: connection, environment: env, logger: logger)
        self.integration = IntegrationService(broker: broker, logger: logger)
        self.replies = ReplyService(connection: connection, logger: logger)
        self.pasteboards = PasteboardService(
            store: PasteboardStore(disk: PasteboardDisk(environment: environment), limits: { [policy] in policy.current.pasteboards }),
            connection: connection, callers: callers, registry: registry, descriptors: descriptors, logger: logger)
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

    // MARK: queries (in-memory lookups, inline on the loop thread)

    /// Answers a query for `sender` within what it may learn (query privacy). Nil when the
    /// answer needs the caller identified first: the query then goes to ``query(_:_:)``.
    func queryNow<T>(_ sender: String, _ answer: (QueryScope) throws(OpenFailure) -> T) throws(DBusError) -> T? {
        guard broker.queryPrivacy else { return try adapt { () throws(OpenFailure) in try answer(.all) } }
        guard let known = callers.cached(sender) else { return nil }
        let scope = broker.queryScope(for: Self.caller(sender, known))
        return try adapt { () throws(OpenFailure) in try answer(scope) }
    }

    /// A query that waits for the caller to be identified (query privacy on, a new caller).
    func query<T>(_ sender: String, _ answer: (QueryScope) throws(OpenFailure) -> T) async throws(DBusError) -> T {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        let scope = broker.queryScope(for: Self.caller(sender, known))
        return try adapt { () throws(OpenFailure) in try answer(scope) }
    }

    func canOpen(_ url: String) -> (QueryScope) throws(OpenFailure) -> Bool {
        { [broker] scope throws(OpenFailure) in try broker.canOpen(url, scope: scope) }
    }

    func handlers(forScheme scheme: String) -> (QueryScope) throws(OpenFailure) -> [String] {
        { [broker] scope throws(OpenFailure) in try broker.handlers(forScheme: scheme, scope: scope) }
    }

    func defaultHandler(forScheme scheme: String) -> (QueryScope) throws(OpenFailure) -> String {
        { [broker] scope throws(OpenFailure) in try broker.defaultHandler(forScheme: scheme, scope: scope) }
    }

    func launchImage(for url: String) -> (QueryScope) throws(OpenFailure) -> String {
        let scale = sessionScale.load(ordering: .relaxed)
        return { [broker] scope throws(OpenFailure) in try broker.launchImage(for: url, scale: scale, scope: scope) }
    }

    /// The `Schemes` property as `sender` may see it (nil: a `PropertiesChanged` everyone sees).
    /// A caller not identified yet sees nothing under query privacy, and is identified for next time.
    func schemes(for sender: String?) -> [String] {
        guard broker.queryPrivacy else { return broker.schemes() }
        guard let sender, let known = callers.cached(sender) else {
            if let sender {
                let (connection, registry, callers) = (self.connection, self.registry, self.callers)
                Task { _ = await callers.caller(sender, connection: connection, registry: registry) }
            }
            return []
        }
        return broker.schemes(scope: broker.queryScope(for: Self.caller(sender, known)))
    }

    /// Sets a default for `sender`: limited per caller, written off the shared task threads.
    func setDefault(scheme: String, desktopID: String, sender: String) async throws(DBusError) {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        do { try await broker.setDefault(scheme: scheme, desktopID: desktopID, caller: Self.caller(sender, known)) } catch { throw DBusError(error) }
    }

    // MARK: opening

    /// Opens `url` for `sender`. Every failure is also announced with `URLFailed`, every success
    /// with `URLHandled`.
    func open(_ url: String, options rawOptions: [String: DBusValue], sender: String, method: MemberName) async throws(DBusError) -> OpenResults {
        try await open(url, options: rawOptions, sender: sender, method: method, reply: nil).results
    }

    /// `OpenURLWithReply`: opens `url` with a request the handler answers; returns the request's
    /// path, and publishes it once the reply naming it has been sent.
    func openWithReply(_ url: String, options rawOptions: [String: DBusValue], sender: String) async throws(DBusError) -> MethodResult {
        let opened = try await open(url, options: rawOptions, sender: sender, method: ContractMethod.openURLWithReply, reply: true)
        guard let id = opened.request else { throw DBusError(.failed, "internal error: no request was made") }
        return MethodResult([.objectPath(ReplyService.path(id))], followUp: { [replies] in replies.publish(id) })
    }

    /// Opens `url`; with `reply`, a request is made before the launch, its token handed to the
    /// handler, and the started handler recorded on it.
    private func open(_ url: String, options rawOptions: [String: DBusValue], sender: String, method: MemberName,
                      reply: Bool?) async throws(DBusError) -> (results: OpenResults, request: UInt64?) {
        var pinned: UInt64? = nil
        do throws(DBusError) {
            let options = try OpenOptions(decoding: rawOptions)
            let known = await callers.caller(sender, connection: connection, registry: registry)
            try await refuseHandBack(url, from: known)
            let subject = try adapt { () throws(OpenFailure) in OpenSubject.url(try broker.validate(url)) }
            // Named, a pinned x-callback's (for its handler only), remembered, routed, picked (`ask`), or nil: the default.
            let (handler, pinnedCallback) = try await handler(for: subject, options: options, sender: sender, known: known)
            let callback = pinnedCallback ? handler : nil
            let request = OpenRequest(url: url, handler: pinnedCallback ? nil : handler, activationToken: options.activationToken,
                                      launchImage: options.launchImage, scale: options.scale, caller: Self.caller(sender, known))
            var splashAvailable = false
            if case .splash = presenter.mode { splashAvailable = true }
            let timeout = Duration.seconds(Int64(options.timeout ?? OpenOptions.defaultTimeout))
            let pasteboardCaller = PasteboardCaller(busName: sender, appID: known.appID, lineage: known.lineage)
            let pasteboard = try options.pasteboard.map { reference throws(DBusError) in try pasteboards.ownedPasteboard(reference, caller: pasteboardCaller) }
            var admission = try adapt { () throws(OpenFailure) in
                try broker.admit(request, searchPath: searchPath, sessionScale: sessionScale.load(ordering: .relaxed),
                                 splashAvailable: splashAvailable, callbackLifetime: max(timeout, .seconds(3600)), callback: callback)
            }
            pinned = admission.callbackGroup
            if let pasteboard {
                // The handler may read it before it starts: its app id now, its process once spawned.
                let (store, appID) = (pasteboards.store, String(admission.plan.entry.id.dropLast(admission.plan.entry.id.hasSuffix(".desktop") ? 8 : 0)))
                try await pasteboards.blocking { () throws(PasteboardError) in try store.grantHandler(pasteboard, appID: appID, caller: pasteboardCaller) }
                admission.context.pasteboardPath = PasteboardService.path(pasteboard).rawValue
            }
            guard reply == true else {
                return (try await launch(admission, annotation: options.annotation, caller: request.caller, method: method, reply: nil, pasteboard: pasteboard), nil)
            }
            let pending = try replies.begin(caller: sender, handlerID: admission.plan.entry.id, timeout: timeout)
            admission.context.replyToken = pending.token
            do throws(DBusError) {
                let results = try await launch(admission, annotation: options.annotation, caller: request.caller, method: method, reply: pending.id, pasteboard: pasteboard)
                return (results, pending.id)
            } catch {
                replies.abandon(pending.id)
                throw error
            }
        } catch {
            // Callback routes pinned for a request that did not start go with it.
            if let pinned { broker.callbackRoutes.drop(pinned) }
            logger.notice("could not open \(URLText.shortened(url)): \(error.name.rawValue): \(error.message)")
            announce(URLFailed(url: Self.sanitized(url), errorName: error.name.rawValue, message: error.message), to: sender)
            throw error
        }
    }

    /// Refuses a request for `url` from a handler we just started for it (or a process it ran):
    /// it hands the URL back, and starting it again would loop.
    private func refuseHandBack(_ url: String, from caller: CallerCache.Caller) async throws(DBusError) {
        if let loop = await recentLaunches.handingBack(url, lineage: caller.lineage, activatedPID: { [self] name in
            await pidOf(name).map { Int32(bitPattern: $0) }
        }) {
            throw ContractError.launchFailed(RecentLaunches.message(loop))
        }
    }

    /// Starts what `admission` says and reports it.
    /// `pasteboard`: a pasteboard the started handler may read (its process, or the connection
    /// that owns its activated name).
    func launch(_ admission: Admission, annotation: DBusValue?, caller: Caller, method: MemberName, reply: UInt64?,
                pasteboard: String? = nil, contentType: String? = nil) async throws(DBusError) -> OpenResults {
        let (plan, context) = (admission.plan, admission.context)
        var results = OpenResults(handler: plan.entry.id)
        var details: [String: DBusValue] = [URLHandled.Key.method: .string(method.rawValue), URLHandled.Key.source: .string(caller.appID ?? "")]
        if let contentType { details[URLHandled.Key.contentType] = .string(contentType) }
        let launchKind: URLHandled.Launch
        var shown = false

        switch plan.action {
        case .spawn(let commands):
            var pids: [Int32] = []
            for command in commands {
                let name = plan.entry.id
                let (log, replies, store) = (logger, self.replies, pasteboards.store)
                // The first process is the one a reply request watches, and its callbacks' handler.
                let first = pids.isEmpty
                let watched = first ? reply : nil
                let (routes, group) = (broker.callbackRoutes, admission.callbackGroup)
                let held = Mutex<HandlerProcess?>(nil)
                // The pid, for dropping its pasteboard grant when it ends (before it can be reused).
                let started = Mutex<Int32?>(nil)
                do {
                    pids.append(try launcher.spawn(argv: command.argv, environment: context.environment(base: childEnvironment, command: command),
                                                   workingDirectory: command.workingDirectory, onStart: { pid in
                                                       if let pasteboard { store.addLaunchGrant(pasteboard, .process(pid)) }
                                                       started.withLock { $0 = pid }
                                                       // Held by a pidfd before it can be reaped: a reused pid is never it.
                                                       guard first else { return }
                                                       let process = HandlerProcess(pid: pid)
                                                       held.withLock { $0 = process }
                                                       if let group { routes.started(group, handler: .spawned(process)) }
                                                   }, onExit: { code in
                                                       if pasteboard != nil, let pid = started.withLock({ $0 }) { store.dropLaunchGrant(.process(pid)) }
                                                       if code != 0 { log.info("handler \(name) exited with status \(code)") }
                                                       if let watched { replies.handlerExited(watched, status: code) }
                                                   }))
                    if let watched, let process = held.withLock({ $0 }) { replies.started(watched, handler: .spawned(process)) }
                } catch {
                    throw ContractError.launchFailed("cannot start \(plan.entry.name ?? name) (\(name)): \(error.reason)")
                }
            }
            for pid in pids { recentLaunches.record(url: plan.url.string, entry: plan.entry, pid: pid) }
            results.pid = pids.first.map { UInt32(bitPattern: $0) }
            shown = await present(admission, handlerPID: pids.first).shown
            launchKind = .spawn
        case .activate(let busName, let objectPath):
            // The app may take a while to start on activation: the image goes up first, and
            // comes down at once when the activation fails.
            let presented = await present(admission, handlerPID: nil)
            shown = presented.shown
            if let reply { replies.started(reply, handler: .activating(busName: busName)) }
            if let group = admission.callbackGroup { broker.callbackRoutes.started(group, handler: .activating(busName: busName)) }
            recentLaunches.record(url: plan.url.string, entry: plan.entry, busName: busName)
            if let pasteboard {
                // The app may read inside its Open: start it first, and grant its connection.
                await grantActivated(busName, pasteboard: pasteboard)
            }
            do {
                try await activate(plan, busName: busName, objectPath: objectPath, context: context, annotation: annotation)
            } catch {
                if let splash = presented.splash { presenter.takeDown(splash: splash) }
                throw error
            }
            results.pid = await pidOf(busName)
            if let pid = results.pid { recentLaunches.activated(url: plan.url.string, busName: busName, pid: Int32(bitPattern: pid)) }
            launchKind = .dbusActivation
            if reply != nil || admission.callbackGroup != nil, let owner = await replies.ownerOf(busName) {
                let handler = LaunchedHandler.activated(owner: owner, process: results.pid.map { HandlerProcess(pid: Int32(bitPattern: $0)) })
                if let reply { replies.started(reply, handler: handler) }
                if let group = admission.callbackGroup { broker.callbackRoutes.started(group, handler: handler) }
            }
        }
        if shown, let image = admission.image { results.launchImage = image }
        details[URLHandled.Key.launch] = .string(launchKind.rawValue)
        details[URLHandled.Key.launchImage] = .string(results.launchImage)
        if let pid = results.pid { details[URLHandled.Key.pid] = .uint32(pid) }
        logger.info("opened \(URLText.shortened(plan.url.string)) with \(plan.entry.id) for \(caller.displayName)")
        announce(URLHandled(url: plan.url.string, scheme: plan.url.scheme.name, handler: plan.entry.id, details: details), to: caller.busName)
        return results
    }

    /// Puts the admitted launch image up (splash or notification) for a handler being started;
    /// returns the splash's pid when there is one, and whether the image is shown.
    private func present(_ admission: Admission, handlerPID: Int32?) async -> (splash: Int32?, shown: Bool) {
        guard let image = admission.image else { return (nil, false) }
        if case .splash(let helper) = presenter.mode, let startupID = admission.context.startupID {
            let pid = presenter.showSplash(helper: helper, image: image, pid: handlerPID, startupID: startupID,
                                           entry: admission.plan.entry, config: admission.config)
            return (pid, pid != nil)
        }
        return (nil, await presenter.notify(image: image, entry: admission.plan.entry))
    }

    private func activate(_ plan: LaunchPlan, busName: String, objectPath: String, context: LaunchContext, annotation: DBusValue?) async throws(DBusError) {
        guard let name = try? BusName(busName), let path = try? ObjectPath(objectPath) else {
            throw ContractError.launchFailed("\(plan.entry.id) is DBusActivatable but its id does not make a valid bus name")
        }
        var platform = context.platformData.mapValues { DBusValue.string($0) }
        if let annotation { platform["annotation"] = annotation }
        do {
            _ = try await connection.call(destination: name, path: path, interface: "org.freedesktop.Application", member: "Open",
                                          [.strings([plan.url.string]), .vardict(platform)], timeout: .seconds(25))
        } catch {
            throw ContractError.launchFailed("\(plan.entry.name ?? plan.entry.id) (\(plan.entry.id)) did not open the URL over D-Bus: \(error.name.rawValue): \(error.message)")
        }
    }

    /// Starts `busName` by activation (if it is not running) and grants its owner's connection
    /// read access to `pasteboard`. A failure to start is reported by the `Open` call after it.
    private func grantActivated(_ busName: String, pasteboard: String) async {
        _ = try? await BusDriver(connection).startService(busName)
        if let owner = await replies.ownerOf(busName) { pasteboards.store.addLaunchGrant(pasteboard, .connection(owner)) }
    }

    private func pidOf(_ busName: String) async -> UInt32? {
        try? await BusDriver(connection).processID(of: busName)
    }

    // MARK: helpers

    static func caller(_ sender: String, _ known: CallerCache.Caller) -> Caller {
        Caller(busName: sender, pid: known.pid, appID: known.appID)
    }

    /// Runs a broker call, turning its failure into the contract's D-Bus error.
    private func adapt<T>(_ body: () throws(OpenFailure) -> T) throws(DBusError) -> T {
        do { return try body() } catch { throw DBusError(error) }
    }

    /// A URL safe to put in a log line or a signal: valid UTF-8 without NUL, at most 64 KiB.
    static func sanitized(_ url: String) -> String {
        let s = url.utf8.count > SchemeURL.maximumByteCount ? String(decoding: url.utf8.prefix(SchemeURL.maximumByteCount), as: UTF8.self) : url
        return s.utf8.contains(0) ? String(s.unicodeScalars.filter { $0 != "\0" }) : s
    }
}

extension DBusError {
    /// The contract's error for a broker failure.
    init(_ failure: OpenFailure) {
        switch failure.kind {
        case .invalidURL: self = ContractError.invalidURL(failure.message)
        case .noHandler: self = ContractError.noHandler(failure.message)
        case .invalidHandler: self = ContractError.invalidHandler(failure.message)
        case .launchFailed: self = ContractError.launchFailed(failure.message)
        case .accessDenied: self = ContractError.accessDenied(failure.message)
        case .reservedScheme: self = ContractError.reservedScheme(failure.message)
        case .rateLimited: self = ContractError.rateLimited(failure.message)
        case .callbackNotOwned: self = ContractError.callbackNotOwned(failure.message)
        case .quotaExceeded: self = ContractError.quotaExceeded(failure.message)
        case .cancelled: self = ContractError.cancelled(failure.message)
        case .noChooser: self = ContractError.noChooser(failure.message)
        case .notTheHandler: self = ContractError.notTheHandler(failure.message)
        case .invalidArgument: self.init(.invalidArgs, failure.message)
        case .failed: self.init(.failed, failure.message)
        }
    }
}
