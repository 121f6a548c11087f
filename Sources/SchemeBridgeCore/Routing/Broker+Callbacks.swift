extension Broker {
    /// The entry `url` goes to when it is an x-callback URL handed to a request's handler, and
    /// the caller is that handler (``CallbackRoutes``); nil when no live route matches, the
    /// caller names a handler itself, or callbacks are off (`[Callbacks] Enabled=false`): the
    /// URL is then opened as usual. Anyone else opening a URL that matches a live route is
    /// refused with `notTheHandler`: the route stays for its handler, and the URL is not looked
    /// up by scheme.
    /// - Parameter isHandler: whether the caller is a route's handler (nil: not started yet).
    public func callbackEntry(for url: String, handlerNamed: Bool,
                              isHandler: (LaunchedHandler?) async -> Bool) async throws(OpenFailure) -> String? {
        guard !handlerNamed, policy.current.callbacks, let parsed = try? SchemeURL(url) else { return nil }
        return try await callbackEntry(for: parsed, handlerNamed: handlerNamed, isHandler: isHandler)
    }

    /// ``callbackEntry(for:handlerNamed:isHandler:)`` for a URL parsed already.
    public func callbackEntry(for url: SchemeURL, handlerNamed: Bool,
                              isHandler: (LaunchedHandler?) async -> Bool) async throws(OpenFailure) -> String? {
        guard !handlerNamed, policy.current.callbacks else { return nil }
        switch await callbackRoutes.claim(url, isHandler: isHandler) {
        case .none:
            return nil
        case .pinned(let entry):
            return entry
        case .refused:
            throw OpenFailure(.notTheHandler, "this URL is an x-callback URL handed to the handler of another app's request: "
                + "only that handler (the process started for it, its descendants, or the app activated for it) may open it")
        }
    }
}
