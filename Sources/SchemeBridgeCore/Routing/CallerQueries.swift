/// The main interface's queries and the defaults' setters for a caller named by its bus name:
/// each answered within what that caller may learn (query privacy, ``Broker/queryScope(for:)``;
/// a sandboxed caller's limits, ``SandboxedCallerRule``). The daemon decodes the call, asks, and
/// encodes the answer; the scheme queries are in-memory lookups it answers on its loop thread
/// when ``scopeNow(_:)`` knows the caller, else once ``scope(_:)`` has identified it.
public struct CallerQueries: Sendable {
    public let broker: Broker
    public let callers: CallerCache
    public let integration: IntegrationService
    public let documents: Documents
    public let descriptors: DescriptorWork
    /// The session's scale now (the launch images' size), read per query.
    let sessionScale: @Sendable () -> Int

    public init(broker: Broker, callers: CallerCache, integration: IntegrationService, documents: Documents, descriptors: DescriptorWork,
                sessionScale: @escaping @Sendable () -> Int) {
        (self.broker, self.callers, self.integration, self.documents, self.descriptors) = (broker, callers, integration, documents, descriptors)
        self.sessionScale = sessionScale
    }

    /// The scope of a query from `sender` when it is identified already; nil when it must be
    /// identified first — even with query privacy off: a sandboxed caller is always under it.
    public func scopeNow(_ sender: String) -> QueryScope? {
        callers.cached(sender).map { broker.queryScope(for: $0) }
    }

    /// The scope of a query from `sender`, identified first when new.
    public func scope(_ sender: String) async -> QueryScope {
        broker.queryScope(for: await callers.caller(sender))
    }

    /// The launch image `LaunchImageForURL` names for `url` at the session's scale now.
    public func launchImage(for url: String, scope: QueryScope) throws(OpenFailure) -> String {
        try broker.launchImage(for: url, scale: sessionScale(), scope: scope)
    }

    /// The `Schemes` property as `sender` may see it (nil: a `PropertiesChanged` everyone sees).
    /// A caller not identified yet sees nothing under query privacy, and is identified for next time.
    public func schemes(for sender: String?) -> [String] {
        broker.schemes(scope: broker.queryScope(for: callers.cachedOrIdentifyLater(sender, needed: broker.queryPrivacy)))
    }

    /// `SetDefaultHandler` from `sender` (never a sandboxed one; limited per caller); a scheme
    /// routed through SchemeBridge stays routed, SchemeBridge first, then the new default.
    public func setDefault(scheme: String, desktopID: DesktopID, sender: String) async throws(OpenFailure) {
        let caller = try await callers.administrator(sender, "set the default handler of a scheme")
        try await broker.setDefault(scheme: scheme, desktopID: desktopID, caller: caller)
        await integration.keepRouted(scheme, newDefault: desktopID)
    }

    /// `SetDefaultHandlerForType`: as `SetDefaultHandler`, for a content type.
    public func setDefault(type: String, desktopID: DesktopID, sender: String) async throws(OpenFailure) {
        let caller = try await callers.administrator(sender, "set the default handler of a content type")
        try await broker.setDefault(type: type, desktopID: desktopID, caller: caller)
    }

    /// `ContentTypeForFile`: the type of the file `fd` (named `name`), read on the descriptor
    /// threads within `sender`'s share of them.
    public func contentType(of fd: some HeldDescriptor, name: String, sender: String) async throws -> String {
        let (caller, documents) = (await callers.caller(sender), self.documents)
        return try await descriptors.run(for: caller.appID ?? sender) { () throws in
            try fd.withFileDescriptor { d throws(OpenFailure) in try documents.contentType(of: d, name: name) }
        }
    }

    /// `HandlersForType`: the eligible handlers of `type` (or of the first type along its parent
    /// chain that has any), default first, SchemeBridge itself left out; nothing for a sandboxed caller.
    public func handlers(forType type: String, sender: String) async -> [DesktopID] {
        SandboxedCallerRule.mayListTypeHandlers(await callers.caller(sender)) ? broker.handlers(forType: type) : []
    }

    /// `DefaultHandlerOrigin(subject)`: the default of a scheme (as `sender`'s query scope may
    /// learn it) or of a content type (a subject with a `/`; none for a sandboxed caller, as
    /// `DefaultHandlerForType`), and where it comes from; nil when none.
    public func defaultHandlerOrigin(_ subject: String, sender: String) async throws(OpenFailure) -> DefaultHandlerFound? {
        let caller = await callers.caller(sender)
        if subject.contains("/") {
            guard SandboxedCallerRule.mayListTypeHandlers(caller), let found = broker.defaultHandlerOrigin(forType: subject) else { return nil }
            return DefaultHandlerFound(handler: found.handler, origin: found.origin, contentType: found.type)
        }
        let found = try broker.defaultHandlerOrigin(forScheme: subject, scope: broker.queryScope(for: caller))
        return found.map { DefaultHandlerFound(handler: $0.handler, origin: $0.origin, contentType: nil) }
    }

    /// `Choices`: a sandboxed caller sees its own only.
    public func choices(visibleTo sender: String) async -> [Choice] {
        broker.visibleChoices(to: await callers.caller(sender))
    }
}

/// A default handler and where it comes from (``CallerQueries/defaultHandlerOrigin(_:sender:)``).
public struct DefaultHandlerFound: Sendable, Equatable {
    /// Its desktop id.
    public var handler: DesktopID
    public var origin: DefaultOrigin
    /// The type along the asked type's parent chain whose default it is (nil for a scheme).
    public var contentType: String?
}
