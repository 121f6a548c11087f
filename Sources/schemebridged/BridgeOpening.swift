import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `OpenURL`, `OpenURLWithOptions` and `OpenURLWithReply`: decode, identify the caller, refuse a
/// hand-back, decide the handler, admit, grant a pasteboard, make a reply request, launch.
extension Bridge {
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
            if options.universalLinksOnly {
                guard reply == nil else { throw DBusError(.invalidArgs, "universal-links-only is an option of OpenURLWithOptions") }
                return (try await openAppLink(url, options: options, sender: sender, known: known, method: method), nil)
            }
            let subject = try Self.adapt { () throws(OpenFailure) in OpenSubject.url(try broker.validate(url)) }
            // Named, a pinned x-callback's (for its handler only), remembered, routed, picked (`ask`), or nil: the default.
            let (handler, pinnedCallback) = try await handler(for: subject, options: options, sender: sender, known: known)
            let callback = pinnedCallback ? handler : nil
            let request = OpenRequest(url: url, handler: pinnedCallback ? nil : handler, activationToken: options.activationToken,
                                      launchImage: options.launchImage, scale: options.scale, caller: Self.caller(sender, known))
            var splashAvailable = false
            if case .splash = presenter.mode { splashAvailable = true }
            let timeout = Duration.seconds(Int64(options.timeout ?? OpenOptions.defaultTimeout))
            let pasteboardCaller = Self.caller(sender, known)
            let pasteboard = try options.pasteboard.map { reference throws(DBusError) in try pasteboards.ownedPasteboard(reference, caller: pasteboardCaller) }
            var admission = try Self.adapt { () throws(OpenFailure) in
                try broker.admit(request, searchPath: searchPath, sessionScale: sessionScale.load(ordering: .relaxed),
                                 splashAvailable: splashAvailable, callbackLifetime: max(timeout, .seconds(3600)), callback: callback)
            }
            pinned = admission.callbackGroup
            if let pasteboard {
                // The handler may read it before it starts: its app id now, its process once spawned.
                let (store, appID) = (pasteboards.store, DesktopID.appID(admission.plan.entry.id))
                try await pasteboards.blocking { () throws(PasteboardError) in try store.grantHandler(pasteboard, appID: appID, caller: pasteboardCaller) }
                admission.context.pasteboardPath = PasteboardService.path(pasteboard).rawValue
            }
            guard reply == true else {
                return (try await launch(admission, annotation: options.annotation, caller: request.caller, method: method, reply: nil, pasteboard: pasteboard), nil)
            }
            let launchTokens = Set([admission.context.activationToken, admission.context.startupID].compactMap { $0 })
            let pending = try replies.begin(caller: sender, handlerID: admission.plan.entry.id, launchTokens: launchTokens, timeout: timeout)
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
        if let loop = await starter.recentLaunches.handingBack(url, lineage: caller.lineage, activatedPID: { [self] name in
            await pidOf(name).map { Int32(bitPattern: $0) }
        }) {
            throw ContractError.launchFailed(RecentLaunches.message(loop))
        }
    }

}
