import LinuxSystem
import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// Opening URLs and documents (`OpenURL`, `OpenURLWithOptions`, `OpenURLWithReply`, `OpenFile`;
/// what a device sends): decode, identify the caller, refuse a hand-back, the core's one path
/// (decide, ask and settle: ``Broker/settle(_:for:caller:chooser:context:warn:)``; admit), grant a
/// pasteboard, make a reply request, start (``Launcher``), announce. Documents: `OpeningDocuments.swift`.
final class Opening: Sendable {
    let broker: Broker
    let callers: Callers
    let launcher: Launcher
    let chooser: ChooserService
    let replies: ReplyService
    let pasteboards: PasteboardService
    let deliverer: DocumentDeliverer
    let announcer: Announcer
    let scale: SessionScale
    let searchPath: [String]
    let logger: Logger
    /// Verified app links (`AppLinks/`): `universal-links-only`, and the link methods.
    let appLinks: AppLinkService

    init(broker: Broker, callers: Callers, launcher: Launcher, chooser: ChooserService, replies: ReplyService, pasteboards: PasteboardService,
         deliverer: DocumentDeliverer, announcer: Announcer, scale: SessionScale, appLinks: AppLinkService, logger: Logger) {
        self.appLinks = appLinks
        (self.broker, self.callers, self.launcher, self.chooser, self.replies) = (broker, callers, launcher, chooser, replies)
        (self.pasteboards, self.deliverer, self.announcer, self.scale, self.logger) = (pasteboards, deliverer, announcer, scale, logger)
        self.searchPath = broker.registry.directories.executableSearchPath
    }

    var documents: Documents { deliverer.documents }
    var registry: Registry { broker.registry }
    /// Whether a launch image would be shown as a splash (which needs a startup id).
    var splashAvailable: Bool { launcher.splashAvailable }

    /// Opens `url` for `sender` — as `known` when given (what a device sent opens as the engine,
    /// ``Receiving/engineCaller``, not as an unidentified caller). Every failure is also announced
    /// with `URLFailed`, every success with `URLHandled`.
    /// `onLoop`: started on the D-Bus loop thread (`OpenURL`), where a quick open stays (``Broker/admitsQuickly(_:handler:caller:)``).
    func open(_ url: String, options rawOptions: [String: DBusValue], sender: String, method: MemberName,
              as known: Caller? = nil, onLoop: Bool = false) async throws -> OpenResults {
        try await open(url, options: rawOptions, sender: sender, method: method, reply: nil, as: known, onLoop: onLoop).results
    }

    /// `OpenURLWithReply`: opens `url` with a request the handler answers; returns the request's
    /// path, and publishes it once the reply naming it has been sent.
    func openWithReply(_ url: String, options rawOptions: [String: DBusValue], sender: String) async throws -> MethodResult {
        let opened = try await open(url, options: rawOptions, sender: sender, method: ContractMethod.openURLWithReply, reply: true)
        guard let id = opened.request else { throw DBusError(.failed, "internal error: no request was made") }
        return MethodResult([.objectPath(ReplyService.path(id))], followUp: { [replies] in replies.publish(id) })
    }

    /// Opens `url`; with `reply`, a request is made before the launch, its token handed to the
    /// handler, and the started handler recorded on it.
    private func open(_ url: String, options rawOptions: [String: DBusValue], sender: String, method: MemberName,
                      reply: Bool?, as known: Caller? = nil, onLoop: Bool = false) async throws -> (results: OpenResults, request: UInt64?) {
        var pinned: UInt64? = nil
        do {
            let options = try OpenOptions(checking: rawOptions)
            let caller = if let known { known } else { await callers.caller(sender) }
            try await refuseHandBack(url, from: caller)
            let target = try broker.validate(url)  // parsed once
            if options.universalLinksOnly {
                guard reply == nil else { throw DBusError(.invalidArgs, "universal-links-only is an option of OpenURLWithOptions") }
                return (try await openAppLink(target, options: options, caller: caller, method: method), nil)
            }
            // Named, a pinned x-callback's (for its handler only), remembered, routed, picked (`ask`), or nil: the default.
            let settled = try await handler(for: .url(target), options: options, caller: caller)
            let callback = settled.pinnedCallback ? settled.id?.text : nil
            // Admitted and spawned on the loop thread, as the C service does, when quick and nothing waits for the loop.
            let leave = onLoop && !(callback == nil && broker.admitsQuickly(target, handler: settled.id?.desktopID, caller: caller) && launcher.connection.loopIsIdle)
            return try await withTaskExecutorPreference(leave ? globalConcurrentExecutor : nil) { () async throws -> (results: OpenResults, request: UInt64?) in
                let request = OpenRequest(url: target, handler: settled.pinnedCallback ? nil : settled.id?.desktopID, decided: true,
                                          activationToken: settled.launchToken(callerToken: options.activationToken),
                                          launchImage: options.launchImage, scale: options.scale, caller: caller)
                let timeout = Duration.seconds(Int64(options.timeout ?? OpenOptions.defaultTimeout))
                let pasteboard = try options.pasteboard.map { reference throws in try pasteboards.ownedPasteboard(reference, caller: caller) }
                var admission = try broker.admit(request, searchPath: searchPath, sessionScale: scale.current,
                                                 splashAvailable: splashAvailable, callbackLifetime: max(timeout, .seconds(3600)), callback: callback)
                pinned = admission.callbackGroup
                if let pasteboard {
                    // The handler may read it before it starts: its app id now, its process once spawned.
                    let (store, handler) = (pasteboards.store, admission.plan.entry.id)
                    try await pasteboards.blocking { () throws(PasteboardError) in try store.grantHandler(pasteboard, handler: handler, caller: caller) }
                    admission.context.pasteboardPath = PasteboardService.path(pasteboard).rawValue
                }
                guard reply == true else {
                    return (try await launch(admission, annotation: options.annotation, caller: caller, method: method, reply: nil, pasteboard: pasteboard), nil)
                }
                let launchTokens = Set([admission.context.activationToken, admission.context.startupID].compactMap { $0 })
                let pending = try replies.begin(caller: sender, handlerID: ChooserTargetID(admission.plan.entry.id), launchTokens: launchTokens, timeout: timeout)
                admission.context.replyToken = pending.token
                do {
                    let results = try await launch(admission, annotation: options.annotation, caller: caller, method: method, reply: pending.id, pasteboard: pasteboard)
                    return (results, pending.id)
                } catch {
                    replies.abandon(pending.id)
                    throw error
                }
            }
        } catch {
            let error = DBusError.from(error)
            // Callback routes pinned for a request that did not start go with it.
            if let pinned { broker.callbackRoutes.drop(pinned) }
            logger.notice("could not open \(URLText.shortened(url)): \(error.name.rawValue): \(error.message)")
            announcer.announce(URLFailed(url: URLText.sanitized(url, maxBytes: SchemeURL.maximumByteCount), errorName: error.name.rawValue, message: error.message), to: sender)
            throw error
        }
    }

    /// The handler for `subject` (the core's decision, asking the chooser when it says so; the
    /// chooser is attached to the caller's `parent-window` and says who sent a file a device sent,
    /// `receivedFrom`).
    func handler(for subject: OpenSubject, options: OpenOptions, caller: Caller, receivedFrom: String? = nil) async throws -> SettledHandler {
        let pid = caller.pid.map { Int32(bitPattern: $0) }
        let sandboxAppID = caller.sandboxAppID
        let (broker, replies, chooser, logger) = (self.broker, self.replies, self.chooser, self.logger)
        let decision = try await broker.decide(subject, requested: options.handler, ask: options.ask, caller: caller) { handler in
            await replies.isHandler(handler, sender: caller.busName, pid: pid, sandboxAppID: sandboxAppID)
        }
        return try await broker.settle(decision, for: .open, caller: caller, chooser: chooser,
                                       context: ChooserContext(activationToken: options.activationToken, parentWindow: options.parentWindow,
                                                              receivedFrom: receivedFrom),
                                       warn: { logger.notice("\($0)") })
    }

    /// Starts what `admission` says and reports it with `URLHandled`.
    /// `pasteboard`: a pasteboard the started handler may read (its process, or the connection
    /// that owns its activated name).
    func launch(_ admission: Admission, annotation: DBusValue?, caller: Caller, method: MemberName, reply: UInt64?,
                pasteboard: String? = nil, contentType: String? = nil) async throws -> OpenResults {
        let plan = admission.plan
        let started = try await launcher.start(plan, context: admission.context, admission: admission, request: reply, pasteboard: pasteboard,
                                               annotation: annotation)
        let results = OpenResults(handler: plan.entry.id.fileName, pid: started.pid, launchImage: started.launchImage ?? "")
        // Made after the reply: the caller waits for neither. Each open is logged at debug level
        // only (URLHandled reports it; a failure is logged at notice).
        launcher.connection.afterReply { [logger, announcer] in
            var details: [String: DBusValue] = [URLHandled.Key.method: .string(method.rawValue), URLHandled.Key.source: .string(caller.appID ?? "")]
            if let contentType { details[URLHandled.Key.contentType] = .string(contentType) }
            details[URLHandled.Key.launch] = .string(started.kind.rawValue)
            details[URLHandled.Key.launchImage] = .string(results.launchImage)
            if let pid = results.pid { details[URLHandled.Key.pid] = .uint32(pid) }
            let url = plan.url?.string ?? ""
            announcer.announce(URLHandled(url: url, scheme: plan.url?.scheme.name ?? "", handler: plan.entry.id.fileName, details: details), to: caller.busName)
            logger.debug("opened \(URLText.shortened(url)) with \(plan.entry.id) for \(caller.displayName)")
        }
        return results
    }

    /// Refuses a request for `url` from a handler we just started for it (or a process it ran):
    /// it hands the URL back, and starting it again would loop.
    private func refuseHandBack(_ url: String, from caller: Caller) async throws {
        let launcher = self.launcher
        if let loop = await launcher.starter.recentLaunches.handingBack(url, lineage: caller.lineage, activatedPID: { name in
            await launcher.port.processID(of: name).map { Int32(bitPattern: $0) }
        }) {
            throw ContractError.launchFailed(RecentLaunches.message(loop))
        }
    }
}
