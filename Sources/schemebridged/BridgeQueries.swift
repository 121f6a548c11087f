import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's queries (`CanOpenURL`, `HandlersForScheme`, `DefaultHandler`,
/// `LaunchImageForURL`, the `Schemes` property) within what the caller may learn, and
/// `SetDefaultHandler`. The queries are in-memory lookups, answered inline on the loop thread
/// unless a new caller must be identified first.
extension Bridge {
    /// Answers a query for `sender` within what it may learn (query privacy). Nil when the
    /// answer needs the caller identified first: the query then goes to ``query(_:_:)``.
    /// A caller not identified yet is identified first even with query privacy off: a sandboxed
    /// caller is always under it (``SandboxedCallerRule``).
    func queryNow<T>(_ sender: String, _ answer: (QueryScope) throws(OpenFailure) -> T) throws(DBusError) -> T? {
        guard let known = callers.cached(sender) else { return nil }
        let scope = broker.queryScope(for: Self.caller(sender, known))
        return try Self.adapt { () throws(OpenFailure) in try answer(scope) }
    }

    /// A query that waits for the caller to be identified (query privacy on, a new caller).
    func query<T>(_ sender: String, _ answer: (QueryScope) throws(OpenFailure) -> T) async throws(DBusError) -> T {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        let scope = broker.queryScope(for: Self.caller(sender, known))
        return try Self.adapt { () throws(OpenFailure) in try answer(scope) }
    }

    func canOpen(_ url: String) -> (QueryScope) throws(OpenFailure) -> Bool {
        { [broker] scope throws(OpenFailure) in try broker.canOpen(url, scope: scope) }
    }

    func handlers(forScheme scheme: String) -> (QueryScope) throws(OpenFailure) -> [String] {
        { [broker] scope throws(OpenFailure) in try broker.handlers(forScheme: scheme, scope: scope) }
    }

    func skippedHandlers(forScheme scheme: String) -> (QueryScope) throws(OpenFailure) -> [SkippedHandler] {
        { [broker] scope throws(OpenFailure) in try broker.skippedHandlers(forScheme: scheme, scope: scope) }
    }

    func displayNames(_ ids: [String]) -> (QueryScope) throws(OpenFailure) -> [String: String] {
        { [broker] scope throws(OpenFailure) in try broker.displayNames(ids, scope: scope) }
    }

    func defaultHandler(forScheme scheme: String) -> (QueryScope) throws(OpenFailure) -> String {
        { [broker] scope throws(OpenFailure) in try broker.defaultHandler(forScheme: scheme, scope: scope) }
    }

    func launchImage(for url: String) -> (QueryScope) throws(OpenFailure) -> String {
        let scale = sessionScale.load(ordering: .relaxed)
        return { [broker] scope throws(OpenFailure) in try broker.launchImage(for: url, scale: scale, scope: scope) }
    }

    /// The `Schemes` property as `sender` may see it (nil: a `PropertiesChanged` everyone sees),
    /// within the core's ``Broker/queryScope(for:)`` (a caller not identified yet is nil there:
    /// nothing under query privacy). Such a caller is identified for next time.
    func schemes(for sender: String?) -> [String] {
        let caller = sender.flatMap { sender in callers.cached(sender).map { Self.caller(sender, $0) } }
        if let sender, caller == nil, broker.queryPrivacy {
            let (connection, registry, callers) = (self.connection, self.registry, self.callers)
            Task { _ = await callers.caller(sender, connection: connection, registry: registry) }
        }
        return broker.schemes(scope: broker.queryScope(for: caller))
    }

    /// Sets a default for `sender`: limited per caller, written off the shared task threads.
    func setDefault(scheme: String, desktopID: String, sender: String) async throws(DBusError) {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        do { try await broker.setDefault(scheme: scheme, desktopID: desktopID, caller: Self.caller(sender, known)) } catch { throw DBusError(error) }
        // A scheme routed through us (`integrate`) stays routed: ours first, then the new default.
        let key = (try? broker.validScheme(scheme)) ?? scheme
        do {
            if try await integration.integration.keepRouted(key, newDefault: desktopID) {
                logger.info("\(key) stays routed through SchemeBridge, then \(desktopID)")
            }
        } catch {
            logger.warning("the default of \(key) is \(desktopID), but keeping it routed through SchemeBridge failed: \(error)")
        }
    }

}
