/// The one handler decision for every open (URLs, documents, picks, shares: `Broker+Sharing.swift`). The precedence:
/// the `handler` option > a pinned x-callback (URLs) > the caller's remembered choice > the first
/// `[Routes]` line for the caller > `ask` (a chooser over the eligible handlers that admit the
/// caller) > the default along the subject's chain. Each step counts only when its handler is,
/// now, an eligible handler of the subject that admits the caller; otherwise the next decides.
/// A pick is checked and remembered in ``settle(_:to:caller:warn:)``, and nowhere else.
extension Broker {
    /// The decision for `subject` (see the type's comment), the pinned x-callback step
    /// included: `isCallbackHandler` says whether the caller is the handler an x-callback URL
    /// was handed to (``callbackEntry(for:handlerNamed:isHandler:)``; `NotTheHandler` for anyone
    /// else opening such a URL).
    public func decide(_ subject: OpenSubject, requested: String?, ask: Bool, caller: Caller,
                       isCallbackHandler: (LaunchedHandler?) async -> Bool) async throws(OpenFailure) -> HandlerDecision {
        if requested == nil, case .url(let u) = subject,
           let pinned = try await callbackEntry(for: u, handlerNamed: false, isHandler: isCallbackHandler) {
            return .open(ChooserTargetID(pinned), .callback)
        }
        return try decide(subject, requested: requested, ask: ask, caller: caller)
    }

    /// The decision for `subject` without the x-callback step (requests that cannot carry one).
    public func decide(_ subject: OpenSubject, requested: String?, ask: Bool, caller: Caller) throws(OpenFailure) -> HandlerDecision {
        switch subject {
        case .url(let u): return decide(url: u, requested: requested, ask: ask, caller: caller)
        case .document(let type): return try decide(document: type, requested: requested, ask: ask, caller: caller)
        case .pick(let subject): return try decide(pick: subject, requested: requested, caller: caller)
        case .share(let share): return try decide(share: share, requested: requested, ask: ask, caller: caller)
        }
    }

    /// A URL: a named handler is checked by admission (``URLRouter/plan(_:handler:searchPath:)``),
    /// as is the scheme's default.
    func decide(url: SchemeURL, requested: String?, ask: Bool, caller: Caller) -> HandlerDecision {
        if let requested { return .open(ChooserTargetID(requested), .requested) }
        if let linked = decide(appLink: url, ask: ask, caller: caller) { return linked }  // an https link (`Broker+LinkDeciding.swift`)
        let scheme = url.scheme.name
        if let preferred = preferredHandler(for: url, caller: caller) { return .open(preferred.desktopID, HandlerReason(preferred.preference)) }
        guard ask, !Policy.isNeverRouted(scheme) else { return .open(nil, .byDefault) }
        let candidates = router.handlers(forScheme: scheme).compactMap { id -> ChooserCandidate? in
            guard let entry = registry.entry(id: id), Policy.allows(caller: caller.id, entry: entry) else { return nil }
            return ChooserCandidate(entry)
        }
        return candidates.isEmpty ? .open(nil, .byDefault) : .ask(HandlerQuestion(subject: scheme, candidates: candidates))
    }

    /// A document: a named handler must open the type or one along its parent chain.
    private func decide(document type: ContentType, requested: String?, ask: Bool, caller: Caller) throws(OpenFailure) -> HandlerDecision {
        guard let documents else {
            throw OpenFailure(.noHandler, "documents are not opened here")
        }
        if let requested {
            let chain = documents.types.parentChain(of: type.name)
            let opens = chain.contains { documents.handlers(forType: $0).handlers.contains(DesktopID(fileName: requested)) }
            guard opens, eligibleEntry(DesktopID(fileName: requested)) != nil else {
                throw OpenFailure(.invalidHandler, "\(requested) does not open \(type.name) documents")
            }
            return .open(ChooserTargetID(requested), .requested)
        }
        // The type's handlers, default first, as desktop ids; their entries are read only as
        // needed: a type that thousands of entries list (text/plain) would otherwise have every
        // one of them read, twice, on each open (~13 ms at 10,000).
        let ids = documents.handlers(forType: type.name).handlers
        // What a chooser offers: the type's apps and its parents' (as GIO does), read only when
        // asked or a remembered pick may be one of the parents' apps.
        let offered: [DesktopID]
        if ask || caller.rememberingID != nil {
            offered = registry.handlersForChoosing(alongChain: documents.types.parentChain(of: type.name))
        } else {
            offered = []
        }
        func isUsable(_ target: ChooserTargetID) -> Bool {
            let id = target.desktopID
            return (ids.contains(id) || offered.contains(id)) && (eligibleEntry(id).map { Policy.allows(caller: caller.id, entry: $0) } ?? false)
        }
        guard let first = ids.lazy.compactMap(eligibleEntry).first else {
            throw OpenFailure(.noHandler, "no installed application opens \(type.name) documents (declare it with MimeType=\(type.name); in a desktop entry)")
        }
        if let rememberingID = caller.rememberingID, let preferred = preferredHandler(subject: type.name, caller: rememberingID, isUsable: isUsable) {
            return .open(preferred.desktopID, HandlerReason(preferred.preference))
        }
        if ask {
            let candidates = offered.filter { isUsable(ChooserTargetID($0)) }.compactMap { registry.entry(id: $0).map(ChooserCandidate.init) }
            if !candidates.isEmpty { return .ask(HandlerQuestion(subject: type.name, candidates: candidates)) }
        }
        return .open(ChooserTargetID(first.id), .byDefault)
    }

    /// The handler the user picked in answer to `question`: `Cancelled` when they did not pick,
    /// `NoChooser` when the chooser failed (it could not be shown), `InvalidHandler` when the pick is not a candidate the chooser was shown. "Always"
    /// remembers it for `caller`; a pick that cannot be remembered still opens (`warn` says why).
    public func settle(_ answer: ChooserAnswer, to question: HandlerQuestion, caller: Caller,
                       warn: (String) -> Void) async throws(OpenFailure) -> ChooserTargetID {
        switch answer {
        case .cancelled(let reason):
            throw OpenFailure(.cancelled, "nothing was opened: \(reason)")
        case .failed(let reason):
            throw OpenFailure(.noChooser, "nothing was opened: \(reason)")
        case .picked(let id, let always, _):
            guard ChooserCandidate.offerable(question.candidates).contains(where: { $0.id == id }) else {
                throw OpenFailure(.invalidHandler, "the chooser picked '\(id.text.prefix(200))', which is not one of the applications offered for '\(question.subject)'")
            }
            if always {
                do { try await remember(id, for: question.subject, caller: caller) } catch { warn(error.message) }
            }
            return id
        }
    }

    /// The eligible handlers of `type` (or of the first type along its parent chain that has
    /// any), default first, SchemeBridge itself left out; none when documents are not opened here.
    public func handlers(forType type: String) -> [DesktopID] {
        documents?.handlers(forType: type).handlers.filter { eligibleEntry($0) != nil } ?? []
    }

    /// `id`'s entry when it is installed and not SchemeBridge itself.
    func eligibleEntry(_ id: DesktopID) -> DesktopEntry? {
        registry.entry(id: id).flatMap { router.routesBackToUs($0) ? nil : $0 }
    }
}

extension HandlerReason {
    init(_ preference: Broker.Preference) {
        switch preference {
        case .remembered: self = .remembered
        case .route(let pattern): self = .route(callerPattern: pattern)
        }
    }
}
