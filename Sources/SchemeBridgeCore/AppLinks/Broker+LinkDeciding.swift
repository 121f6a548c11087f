/// App links in the one decision (issue 41): an `https` link is a subject like its scheme. The
/// precedence is the scheme's (``decide(_:requested:ask:caller:)``) — the handler option > the
/// caller's remembered choice > the caller's `[Routes]` line (both keyed by the scheme, `https`)
/// > `ask` > the default — with the apps that hold the link (`verified` or `selected`,
/// ``AppLinks/holders(of:)``) counted beside the scheme's handlers (the browsers): a remembered
/// choice or a route may name either; `ask` offers the holders first, then the browsers; and the
/// default is the link's app when one holds it, else the scheme's default (the browser).
/// Decided from what is known: nothing here touches the network.
extension Broker {
    /// The decision for `url` when no handler was requested and it is an app link that app links
    /// are served for; nil otherwise (the scheme's rules decide).
    func decide(appLink url: SchemeURL, ask: Bool, caller: Caller) -> HandlerDecision? {
        guard let links = appLinks, let link = AppLinkURL(url) else { return nil }
        let held = links.holders(of: link)
        // Claimed, yet held by no app (not verified yet): verified in the background, not waited for.
        if held.apps.isEmpty { links.linkNotHeld(held.resolution) }
        let scheme = url.scheme.name
        // A holder, or a handler of the scheme (a browser), that admits the caller.
        let holders = held.apps.filter { id in eligibleEntry(id).map { Policy.allows(caller: caller.id, entry: $0) } ?? false }
        if let rememberingID = caller.rememberingID, hasPreferences(caller),
           let preferred = preferredHandler(subject: scheme, caller: rememberingID,
                                            isUsable: { holders.contains($0.desktopID) || usable($0, scheme: scheme, caller: caller) }) {
            return .open(preferred.desktopID, HandlerReason(preferred.preference))
        }
        if ask {
            var candidates = holders.compactMap { registry.entry(id: $0).map(ChooserCandidate.init) }
            for id in router.handlers(forScheme: scheme) where !holders.contains(id) {
                guard let entry = registry.entry(id: id), Policy.allows(caller: caller.id, entry: entry) else { continue }
                candidates.append(ChooserCandidate(entry))
            }
            return candidates.isEmpty ? .open(nil, .byDefault) : .ask(HandlerQuestion(subject: scheme, candidates: candidates))
        }
        // The link's app, else (it does not admit the caller) the next app that holds the link.
        if let app = holders.first { return .open(ChooserTargetID(app), .appLink) }
        return .open(nil, .byDefault)
    }

    /// The plan for `url` with `handler` (nil: the scheme's default): an app that holds the link
    /// and is not a handler of the scheme gets it as a document's handler gets its URL (its
    /// `Exec`'s `%u`, or D-Bus activation); everything else as the scheme's (``URLRouter``).
    func launchPlan(_ url: SchemeURL, handler: DesktopID?, searchPath: [String]) throws(OpenFailure) -> LaunchPlan {
        if let handler, let links = appLinks, let link = AppLinkURL(url), !registry.isHandler(handler, forScheme: url.scheme.name),
           links.holders(of: link).apps.contains(handler) {
            guard let entry = eligibleEntry(handler), entry.ineligibility(searchPath: searchPath) == nil else {
                throw OpenFailure(.invalidHandler, "\(handler), which holds the link, cannot be started")
            }
            do { return try router.plan(document: url, entry: entry, searchPath: searchPath) } catch { throw OpenFailure(error) }
        }
        do { return try router.plan(url, handler: handler, searchPath: searchPath) } catch {
            if handler == nil, case .noHandler(let scheme) = error, let loop = handedBackToUs(scheme) { throw loop }
            throw OpenFailure(error)
        }
    }

    /// When the user's `mimeapps.list` hands `scheme` to SchemeBridge (`schemebridge integrate`,
    /// or by hand) and no handler but SchemeBridge itself is left — the default that was there
    /// before is gone, or is an entry that runs `schemebridge open` —: the error that says so.
    /// Nothing is started: starting the default would only bring the URL back here.
    func handedBackToUs(_ scheme: String) -> OpenFailure? {
        let path = registry.directories.userMimeappsList
        guard let bytes = try? FileSystem.readFile(path) else { return nil }
        let ids = IntegrationEdit.defaults(scheme, in: KeyFileDocument(bytes: bytes)).map { DesktopID(fileName: $0) }
        guard let ours = ids.first(where: { router.ownDesktopIDs.contains($0) || registry.entry(id: $0).map(router.routesBackToUs) == true }) else {
            return nil
        }
        let what = scheme == "http" || scheme == "https" ? "browser" : "application"
        return OpenFailure(.noHandler, "no \(what) other than SchemeBridge itself opens \(scheme) links: \(path) hands them to \(ours), "
            + "and the \(what) that opened them before is no longer installed or hands them back; nothing was opened "
            + "(choose one with `schemebridge default \(scheme) ID`, or give the scheme back with `schemebridge integrate disable --scheme \(scheme)`)")
    }

    /// Whether admission must decide a URL opened without a handler (a caller that skipped
    /// ``decide(_:requested:ask:caller:)``): the caller has preferences, or the URL is an app link.
    func decidesAtAdmission(_ url: SchemeURL, caller: Caller) -> Bool {
        hasPreferences(caller) || (appLinks != nil && url.scheme.name == "https")
    }
}

extension AppLinks {
    /// The apps that hold `link` now: the link's app (``resolve(host:path:)``: the user's choice,
    /// else the first verified app) first, then every other app whose trusted entry claims the
    /// link and is named by the file of the host its pattern verifies at.
    public func holders(of link: AppLinkURL) -> (resolution: AppLinkResolution, apps: [DesktopID]) {
        let resolution = resolve(host: link.host, path: link.path)
        guard let first = resolution.app else { return (resolution, []) }
        var apps = [first]
        for e in registry.appLinkEntries() where e.trusted && e.id != first {
            guard let pattern = e.declaration.pattern(covering: link.host), e.declaration.admits(path: link.path),
                  endorses(e, pattern) else { continue }
            apps.append(e.id)
        }
        return (resolution, apps)
    }
}
