/// The handler decision for a pick (`PickDocument`), one step of
/// ``decide(_:requested:ask:caller:)``: the named `provider` > the caller's remembered pick >
/// the first `[Routes]` line for `pick:TYPE` > the sheet (always asked otherwise: the user
/// picks a document, so there is no default provider). Each counts only when it is, now, an
/// eligible provider of one of the asked types that admits the caller, or "Files…".
extension Broker {
    /// The sheet's "Files…" entry: a file chooser instead of a provider. Its id can be named as
    /// `provider`, remembered and routed like a provider's.
    public static let filesCandidate = ChooserCandidate(id: .files, name: "Files…", icon: "document-open")

    func decide(pick subject: PickSubject, requested: String?, caller: Caller) throws(OpenFailure) -> HandlerDecision {
        func isUsable(_ id: ChooserTargetID) -> Bool { id == .files || provides(id.desktopID, subject, to: caller) }
        if let requested {
            guard isUsable(ChooserTargetID(requested)) else {
                throw OpenFailure(.invalidHandler, "\(requested.prefix(200)) provides no \(subject.listed) documents to this caller "
                    + "(a provider declares \(ProviderDeclaration.key)=TYPES; in its desktop entry)")
            }
            return .open(ChooserTargetID(requested), .requested)
        }
        if let rememberingID = caller.rememberingID, let preferred = preferredHandler(subject: subject.choiceKey, caller: rememberingID, isUsable: isUsable) {
            return .open(preferred.desktopID, HandlerReason(preferred.preference))
        }
        let offered = providers(for: subject, caller: caller).compactMap { registry.entry(id: $0).map(ChooserCandidate.init) }
        return .ask(HandlerQuestion(subject: subject.choiceKey, candidates: offered + [Self.filesCandidate]))
    }

    /// `PickDocument`'s decision (``decide(_:requested:ask:caller:)`` for `.pick`, always asking
    /// when nothing else decides). A provider started without the user (named, remembered,
    /// routed) counts as a launch of `caller`'s (``chargeLaunch(_:)``: `RateLimited`); "Files…"
    /// starts nothing.
    public func decidePick(_ subject: PickSubject, provider: String?, caller: Caller) throws(OpenFailure) -> HandlerDecision {
        let decision = try decide(.pick(subject), requested: provider, ask: true, caller: caller)
        if let id = decision.handler, id != .files { try chargeLaunch(caller) }
        return decision
    }

    /// The providers of any of `subject`'s types that admit `caller` (desktop ids, byte order).
    public func providers(for subject: PickSubject, caller: Caller) -> [DesktopID] {
        registry.providers().map(\.id).filter { provides($0, subject, to: caller) }
    }

    /// Whether `id` is an eligible provider (not SchemeBridge) of one of `subject`'s types
    /// whose allowed callers admit `caller`.
    private func provides(_ id: DesktopID, _ subject: PickSubject, to caller: Caller) -> Bool {
        guard let entry = eligibleEntry(id), Policy.allows(caller: caller.id, entry: entry) else { return false }
        return subject.isOffered(by: ProviderDeclaration.types(of: entry), types: documents?.types)
    }
}
