/// Choosing among handlers, per caller: remembered choices, `[Routes]`, and what a chooser is
/// shown. The precedence, for every open: the `handler` option (or a pinned x-callback) >
/// the caller's remembered choice > the first `[Routes]` line for the caller > the defaults
/// (`mimeapps.list`, then the documented order). Each step counts only when its handler is,
/// now, an eligible handler of the scheme that admits the caller; otherwise the next one decides.
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
    public func preferredHandler(for url: String, caller: Caller) -> (desktopID: String, preference: Preference)? {
        // Most opens have neither: no second look at the URL then.
        guard let appID = caller.appID, choices.hasChoices(caller: appID) || !policy.current.routes.isEmpty,
              let scheme = try? SchemeURL(url).scheme.name else { return nil }
        return preferredHandler(subject: scheme, appID: appID, isUsable: { usable($0, scheme: scheme, caller: caller) })
    }

    /// ``preferredHandler(for:caller:)`` for any subject (a scheme, or a content type with its
    /// own `isUsable` test). The hook for `OpenFile` (issue 15): with the document's content type
    /// as `subject` and an `isUsable` that checks the type's eligible handlers, it gives the
    /// remembered or routed handler before the type's default; `ask` then offers the type's
    /// handlers through `ChooserService.choose` in the service, and "always" goes to
    /// ``remember(_:for:caller:)`` with the type as subject (the choices file takes types).
    public func preferredHandler(subject: String, appID: String, isUsable: (String) -> Bool) -> (desktopID: String, preference: Preference)? {
        if let id = choices.choice(caller: appID, subject: subject), isUsable(id) { return (id, .remembered) }
        if let route = policy.current.routes.first(for: subject, caller: appID), isUsable(route.desktopID) {
            return (route.desktopID, .route(callerPattern: route.callerPattern))
        }
        return nil
    }

    /// Whether `id` may open `scheme` for `caller`: an eligible handler of it (not SchemeBridge,
    /// not a reserved-scheme takeover) whose allowed callers admit `caller`.
    func usable(_ id: String, scheme: String, caller: Caller) -> Bool {
        guard router.registry.isHandler(id, forScheme: scheme), let entry = router.registry.entry(id: id),
              router.isCandidate(entry, scheme: scheme) else { return false }
        return Policy.allows(caller: caller.appID, entry: entry)
    }

    /// What `ask` does for `url` and `caller`.
    public enum AskPlan: Sendable, Equatable {
        /// The caller's user already decided (a remembered choice or a route): no chooser.
        case decided(String)
        /// Show a chooser for `subject` with these candidates (the default first).
        case choose(subject: String, candidates: [ChooserCandidate])
        /// Nothing to choose from: open as usual, which reports why (no handler, reserved, refused).
        case nothingToChoose
    }

    /// The chooser's candidates for `url`: the scheme's eligible handlers that admit `caller`,
    /// the default first — unless the caller's user already decided. A malformed URL throws.
    public func askPlan(for url: String, caller: Caller) throws(OpenFailure) -> AskPlan {
        let scheme = try validate(url).scheme.name
        if Policy.isNeverRouted(scheme) { return .nothingToChoose }
        if let preferred = preferredHandler(for: url, caller: caller) { return .decided(preferred.desktopID) }
        let candidates = router.handlers(forScheme: scheme).compactMap { id -> ChooserCandidate? in
            guard let entry = registry.entry(id: id), Policy.allows(caller: caller.appID, entry: entry) else { return nil }
            return ChooserCandidate(entry)
        }
        return candidates.isEmpty ? .nothingToChoose : .choose(subject: scheme, candidates: candidates)
    }

    /// Remembers that `caller` opens `subject` with `desktopID` ("always" in a chooser).
    public func remember(_ desktopID: String, for subject: String, caller: Caller) async throws(OpenFailure) {
        guard let appID = caller.appID, ChoiceStore.canRemember(caller: appID) else {
            throw OpenFailure(.failed, "a choice can be remembered only for an identified app; the caller is \(caller.displayName)")
        }
        do { try await choices.remember(Choice(caller: appID, subject: subject, desktopID: desktopID)) } catch {
            throw OpenFailure(.failed, "cannot remember the choice: \(error)")
        }
    }

    /// Forgets what `caller` (an app id) chose for `subject` (a scheme or a content type);
    /// false when nothing was remembered.
    public func forgetChoice(caller: String, subject: String) async throws(OpenFailure) -> Bool {
        guard let s = ChoiceSubject.normalized(subject) else {
            throw OpenFailure(.invalidArgument, "'\(subject.prefix(80))' is neither a scheme nor a content type")
        }
        do { return try await choices.forget(caller: caller, subject: s) } catch {
            throw OpenFailure(.failed, "cannot forget the choice: \(error)")
        }
    }
}
