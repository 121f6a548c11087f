import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's queries (`CanOpenURL`, `HandlersForScheme`, `DefaultHandler`,
/// `LaunchImageForURL`, the `Schemes` property, the types' and choices' queries) within what
/// the caller may learn (query privacy, the core's ``SandboxedCallerRule``), and the defaults'
/// setters. The scheme queries are in-memory lookups, answered inline on the loop thread unless
/// a new caller must be identified first.
struct Queries: Sendable {
    let broker: Broker
    let callers: Callers
    let integration: IntegrationService
    let documents: Documents
    let descriptors: DescriptorWork
    let scale: SessionScale
    let logger: Logger

    /// Answers a query for `sender` within what it may learn (query privacy). Nil when the
    /// answer needs the caller identified first: the query then goes to ``query(_:_:)``.
    /// A caller not identified yet is identified first even with query privacy off: a sandboxed
    /// caller is always under it (``SandboxedCallerRule``).
    func queryNow<T>(_ sender: String, _ answer: (QueryScope) throws(OpenFailure) -> T) throws -> T? {
        guard let caller = callers.cached(sender) else { return nil }
        let scope = broker.queryScope(for: caller)
        return try answer(scope)
    }

    /// A query that waits for the caller to be identified (query privacy on, a new caller).
    func query<T>(_ sender: String, _ answer: (QueryScope) throws(OpenFailure) -> T) async throws -> T {
        let scope = broker.queryScope(for: await callers.caller(sender))
        return try answer(scope)
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
        let scale = self.scale.current
        return { [broker] scope throws(OpenFailure) in try broker.launchImage(for: url, scale: scale, scope: scope) }
    }

    /// The `Schemes` property as `sender` may see it (nil: a `PropertiesChanged` everyone sees),
    /// within the core's ``Broker/queryScope(for:)`` (a caller not identified yet is nil there:
    /// nothing under query privacy). Such a caller is identified for next time.
    func schemes(for sender: String?) -> [String] {
        let caller = sender.flatMap { callers.cached($0) }
        if let sender, caller == nil, broker.queryPrivacy { callers.identifyLater(sender) }
        return broker.schemes(scope: broker.queryScope(for: caller))
    }

    /// Sets a default for `sender`: limited per caller, written off the shared task threads.
    func setDefault(scheme: String, desktopID: DesktopID, sender: String) async throws {
        let caller = await callers.caller(sender)
        try await broker.setDefault(scheme: scheme, desktopID: desktopID, caller: caller)
        // A scheme routed through us (`integrate`) stays routed: ours first, then the new default.
        await integration.keepRouted(scheme, newDefault: desktopID)
    }

    /// `SetDefaultHandlerForType`: as `SetDefaultHandler`, for a content type.
    func setDefault(type: String, desktopID: DesktopID, sender: String) async throws {
        let caller = await callers.caller(sender)
        try await broker.setDefault(type: type, desktopID: desktopID, caller: caller)
    }

    /// `ContentTypeForFile(h, s) → s`.
    func contentType(of fd: UnixFD, name: String, sender: String) async throws -> String {
        let (caller, documents) = (await callers.caller(sender), self.documents)
        return try await descriptors.run(for: caller.appID ?? sender) { () throws in
            try fd.withFileDescriptor { d throws(OpenFailure) in try documents.contentType(of: d, name: name) }
        }
    }

    /// `HandlersForType`: the eligible handlers of `type` (or of the first type along its parent
    /// chain that has any), default first, SchemeBridge itself left out; nothing for a sandboxed caller.
    func handlers(forType type: String, sender: String) async -> [String] {
        SandboxedCallerRule.mayListTypeHandlers(await callers.caller(sender)) ? broker.handlers(forType: type) : []
    }

    /// `Choices`: a sandboxed caller sees its own only.
    func choices(visibleTo sender: String) async -> [RememberedChoice] {
        broker.visibleChoices(to: await callers.caller(sender)).map { RememberedChoice(caller: $0.caller, subject: $0.subject, desktopID: $0.desktopID) }
    }
}
