import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The declaration of the contract's main interface: one value gives dispatch and the
/// introspection XML shipped in `dbus/`. The queries are the core's ``CallerQueries``: lookups
/// run inline on the D-Bus loop thread (in-memory probes) unless a new caller must be
/// identified first; anything that launches, writes or calls out runs as a task.
struct MainInterface {
    let opening: Opening
    let queries: CallerQueries
    let picking: Picking
    let replies: ReplyService

    func declaration() -> Interface {
        assert(Contract.maximumURLBytes == SchemeURL.maximumByteCount, "the contract's longest URL is the core's")
        let (opening, queries, replies, callers, broker) = (self.opening, self.queries, self.replies, queries.callers, queries.broker)
        return Interface(
            Contract.interface,
            methods: [
                Method(ContractSignature.canOpenURL, handler: Self.query(queries) { call, scope in [.boolean(try broker.canOpen(call.string(0), scope: scope))] }),
                Method(ContractSignature.openURL, handler: .onLoop { call in
                    _ = try await opening.open(call.string(0), options: [:], sender: call.sender, method: call.member, onLoop: true)
                    return MethodResult([.boolean(true)])
                }),
                Method(ContractSignature.openURLWithOptions, handler: .async { call in
                    [.vardict(try await opening.open(call.string(0), options: call.dictionary(1), sender: call.sender, method: call.member).dictionary)]
                }),
                Method(ContractSignature.handlersForScheme, handler: Self.query(queries) { call, scope in [.strings(try broker.handlers(forScheme: call.string(0), scope: scope).map(\.fileName))] }),
                Method(ContractSignature.skippedHandlersForScheme, handler: Self.query(queries) { call, scope in
                    [.array(element: .structure([.string, .string, .string]), try broker.skippedHandlers(forScheme: call.string(0), scope: scope).map {
                        .structure([.string($0.desktopID.fileName), .string($0.path), .string($0.reason)])
                    })]
                }),
                Method(ContractSignature.displayNames, handler: Self.query(queries) { call, scope in
                    let names = try broker.displayNames(call.strings(0), scope: scope)
                    return [.dictionary(key: .string, value: .string, names.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .string($0.value)) })]
                }),
                Method(ContractSignature.defaultHandler, handler: Self.query(queries) { call, scope in [.string(try broker.defaultHandler(forScheme: call.string(0), scope: scope)?.fileName ?? "")] }),
                Method(ContractSignature.setDefaultHandler, handler: .async { call in
                    try await queries.setDefault(scheme: call.string(0), desktopID: DesktopID(fileName: call.string(1)), sender: call.sender)
                    return []
                }),
                Method(ContractSignature.openURLWithReply, handler: .asyncThen { call in
                    try await opening.openWithReply(call.string(0), options: call.dictionary(1), sender: call.sender)
                }),
                Method(ContractSignature.reply, handler: .async { call in
                    let caller = await callers.caller(call.sender)
                    try await replies.reply(token: call.string(0), code: call.arguments[1].integer.map { UInt32(truncatingIfNeeded: $0) } ?? 0,
                                            results: call.dictionary(2), sender: call.sender, sandboxAppID: caller.sandboxAppID)
                    return []
                }),
                Method(ContractSignature.openFile, handler: .async { call in
                    [.vardict(try await opening.openFile(try call.descriptor(0), options: call.dictionary(1), sender: call.sender).dictionary)]
                }),
                Method(ContractSignature.contentTypeForFile, handler: .async { call in
                    [.string(try await queries.contentType(of: try call.descriptor(0), name: call.string(1), sender: call.sender))]
                }),
                Method(ContractSignature.handlersForType, handler: .async { call in [.strings(await queries.handlers(forType: call.string(0), sender: call.sender).map(\.fileName))] }),
                Method(ContractSignature.defaultHandlerForType, handler: .async { call in [.string(await queries.handlers(forType: call.string(0), sender: call.sender).first?.fileName ?? "")] }),
                Method(ContractSignature.defaultHandlerOrigin, handler: .async { call in
                    [.vardict(DefaultHandlerOrigin(try await queries.defaultHandlerOrigin(call.string(0), sender: call.sender)).dictionary)]
                }),
                Method(ContractSignature.setDefaultHandlerForType, handler: .async { call in
                    try await queries.setDefault(type: call.string(0), desktopID: DesktopID(fileName: call.string(1)), sender: call.sender)
                    return []
                }),
                Method(ContractSignature.launchImageForURL, handler: Self.query(queries) { call, scope in [.string(try queries.launchImage(for: call.string(0), scope: scope))] }),
            ] + Self.choosingMethods(queries) + Self.pickingMethods(picking)
                + Self.appLinkMethods(opening.appLinks, callers: callers, broker: opening.broker),
            signals: [
                URLHandled.declaration, URLFailed.declaration, HandlersChanged.declaration,
            ],
            properties: [
                Property(ContractProperty.version, type: .uint32, emitsChanged: .const, get: { .uint32(Contract.version) }),
                Property(ContractProperty.schemes, type: .array(.string), read: { caller in .strings(queries.schemes(for: caller)) }),
            ])
    }

    /// A query method: answered inline on the loop thread, or — for a caller not identified
    /// yet (``CallerQueries/scopeNow(_:)``) — in a task once the caller is known.
    static func query(_ queries: CallerQueries, _ answer: @escaping @Sendable (MethodCall, QueryScope) throws -> [DBusValue]) -> MethodHandler {
        .inlineOrAsync(
            inline: { call in try queries.scopeNow(call.sender).map { scope in try answer(call, scope) } },
            async: { call in try answer(call, await queries.scope(call.sender)) })
    }
}
