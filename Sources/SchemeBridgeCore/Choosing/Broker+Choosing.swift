/// Choosing among handlers, per caller: remembered choices and `[Routes]`. The precedence they
/// take part in is decided in one place, ``decide(_:requested:ask:caller:)`` (`Broker+Deciding.swift`).
extension Broker {
    /// Why a handler was preferred for a caller.
    public enum Preference: Sendable, Equatable {
        /// The caller's user chose it with "always".
        case remembered
        /// A `[Routes]` line names it for the caller.
        case route(callerPattern: String)
    }

    /// The handler `caller` gets for `url` before the defaults (remembered, else routed); nil
    /// when neither applies (or `url` is malformed: admission reports that).
    public func preferredHandler(for url: String, caller: Caller) -> (desktopID: ChooserTargetID, preference: Preference)? {
        // Most opens have neither: no second look at the URL then.
        guard hasPreferences(caller), let u = try? SchemeURL(url) else { return nil }
        return preferredHandler(for: u, caller: caller)
    }

    /// ``preferredHandler(for:caller:)`` for a validated URL.
    public func preferredHandler(for url: SchemeURL, caller: Caller) -> (desktopID: ChooserTargetID, preference: Preference)? {
        guard let id = caller.rememberingID, hasPreferences(caller) else { return nil }
        let scheme = url.scheme.name
        return preferredHandler(subject: scheme, caller: id, isUsable: { usable($0, scheme: scheme, caller: caller) })
    }

    /// Whether `caller` may have a remembered choice or a route at all (most callers have neither).
    func hasPreferences(_ caller: Caller) -> Bool {
        guard let id = caller.rememberingID else { return false }
        return choices.hasChoices(caller: id) || !policy.current.routes.isEmpty
    }

    /// ``preferredHandler(for:caller:)`` for any subject (a scheme, or a content type with its
    /// own `isUsable` test): the remembered, else the routed handler. Used by
    /// ``decide(_:requested:ask:caller:)`` for every subject.
    public func preferredHandler(subject: String, caller: CallerID, isUsable: (ChooserTargetID) -> Bool) -> (desktopID: ChooserTargetID, preference: Preference)? {
        if let id = choices.choice(caller: caller, subject: subject), isUsable(id) { return (id, .remembered) }
        if let route = policy.current.routes.first(for: subject, caller: caller), isUsable(route.desktopID) {
            return (route.desktopID, .route(callerPattern: route.callerPattern))
        }
        return nil
    }

    /// Whether `id` may open `scheme` for `caller`: an eligible handler of it (not SchemeBridge,
    /// not a reserved-scheme takeover) whose allowed callers admit `caller`.
    func usable(_ target: ChooserTargetID, scheme: String, caller: Caller) -> Bool {
        let id = target.desktopID
        guard router.registry.isHandler(id, forScheme: scheme), let entry = router.registry.entry(id: id),
              router.isCandidate(entry, scheme: scheme) else { return false }
        return Policy.allows(caller: caller.id, entry: entry)
    }

    /// What `ask` does for `url` and `caller`.
    public enum AskPlan: Sendable, Equatable {
        /// The caller's user already decided (a remembered choice or a route): no chooser.
        case decided(ChooserTargetID)
        /// Show a chooser for `subject` with these candidates (the default first).
        case choose(subject: String, candidates: [ChooserCandidate])
        /// Nothing to choose from: open as usual, which reports why (no handler, reserved, refused).
        case nothingToChoose
    }

    /// The chooser's candidates for `url`: the scheme's eligible handlers that admit `caller`,
    /// the default first — unless the caller's user already decided. A malformed URL throws.
    /// ``decide(_:requested:ask:caller:)`` with `ask`, for a URL.
    public func askPlan(for url: String, caller: Caller) throws(OpenFailure) -> AskPlan {
        switch try decide(.url(validate(url)), requested: nil, ask: true, caller: caller) {
        case .open(let id?, _): return .decided(id)
        case .open(nil, _): return .nothingToChoose
        case .ask(let question): return .choose(subject: question.subject, candidates: question.candidates)
        }
    }

    /// Remembers that `caller` opens `subject` with `desktopID` ("always" in a chooser): called
    /// by ``settle(_:to:caller:warn:)``, the one place a pick is remembered.
    public func remember(_ desktopID: ChooserTargetID, for subject: String, caller: Caller) async throws(OpenFailure) {
        guard let id = caller.rememberingID, ChoiceStore.canRemember(caller: id) else {
            throw OpenFailure(.failed, "a choice can be remembered only for an identified app that no other program shares; the caller is \(caller.displayName)")
        }
        do { try await choices.remember(Choice(caller: id, subject: subject, desktopID: desktopID)) } catch {
            throw OpenFailure(.failed, "cannot remember the choice: \(error)")
        }
    }

    /// Forgets what `caller` chose for `subject` (a scheme or a content type); false when
    /// nothing was remembered.
    public func forgetChoice(caller: CallerID, subject: String) async throws(OpenFailure) -> Bool {
        guard let s = ChoiceSubject.normalized(subject) else {
            throw OpenFailure(.invalidArgument, "'\(subject.prefix(80))' is neither a scheme nor a content type")
        }
        do { return try await choices.forget(caller: caller, subject: s) } catch {
            throw OpenFailure(.failed, "cannot forget the choice: \(error)")
        }
    }
}
