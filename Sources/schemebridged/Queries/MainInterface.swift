import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The declaration of the contract's main interface: one value gives dispatch and the
/// introspection XML shipped in `dbus/`. Lookups run inline on the D-Bus loop thread
/// (in-memory probes); anything that launches, writes or calls out runs as a task.
struct MainInterface {
    let opening: Opening
    let queries: Queries
    let picking: Picking
    let replies: ReplyService
    /// Schemes and desktop ids longer than this are refused without being copied whole.
    static let nameLimit = Contract.maximumNameBytes

    func declaration() -> Interface {
        assert(Contract.maximumURLBytes == SchemeURL.maximumByteCount, "the contract's longest URL is the core's")
        let (opening, queries, replies, callers) = (self.opening, self.queries, self.replies, queries.callers)
        return Interface(
            Contract.interface,
            methods: [
                Method(ContractSignature.canOpenURL, handler: Self.query(queries) { call in queries.canOpen(call.string(0)) } reply: { [.boolean($0)] }),
                Method(ContractSignature.openURL, handler: .async { call in
                    _ = try await opening.open(call.string(0), options: [:], sender: call.sender, method: call.member)
                    return [.boolean(true)]
                }),
                Method(ContractSignature.openURLWithOptions, handler: .async { call in
                    let options = call.arguments[1].stringDictionary ?? [:]
                    let results = try await opening.open(call.string(0), options: options, sender: call.sender, method: call.member)
                    return [.vardict(results.dictionary)]
                }),
                Method(ContractSignature.handlersForScheme, handler: Self.query(queries) { call in queries.handlers(forScheme: call.string(0)) } reply: { [.strings($0)] }),
                Method(ContractSignature.skippedHandlersForScheme, handler: Self.query(queries) { call in queries.skippedHandlers(forScheme: call.string(0)) } reply: { skipped in
                    [.array(element: .structure([.string, .string, .string]), skipped.map { .structure([.string($0.desktopID.fileName), .string($0.path), .string($0.reason)]) })]
                }),
                Method(ContractSignature.displayNames, handler: Self.query(queries) { call in queries.displayNames(call.arguments[0].arrayElements?.compactMap(\.string) ?? []) } reply: { names in
                    [.dictionary(key: .string, value: .string, names.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .string($0.value)) })]
                }),
                Method(ContractSignature.defaultHandler, handler: Self.query(queries) { call in queries.defaultHandler(forScheme: call.string(0)) } reply: { [.string($0)] }),
                Method(ContractSignature.setDefaultHandler, handler: .async { call in
                    try await callers.refuseSandboxed(call.sender, "set the default handler of a scheme")
                    try await queries.setDefault(scheme: call.string(0), desktopID: DesktopID(fileName: call.string(1)), sender: call.sender)
                    return []
                }),
                Method(ContractSignature.openURLWithReply, handler: .asyncThen { call in
                    try await opening.openWithReply(call.string(0), options: call.arguments[1].stringDictionary ?? [:], sender: call.sender)
                }),
                Method(ContractSignature.reply, handler: .async { call in
                    let caller = await callers.caller(call.sender)
                    try await replies.reply(token: call.string(0), code: call.arguments[1].integer.map { UInt32(truncatingIfNeeded: $0) } ?? 0,
                                                   results: call.arguments[2].stringDictionary ?? [:], sender: call.sender,
                                                   sandboxAppID: caller.sandboxed ? caller.appID : nil)
                    return []
                }),
                Method(ContractSignature.openFile, handler: .async { call in
                    guard case .unixFD(let fd) = call.arguments[0] else { throw DBusError(.invalidArgs, "fd must be a file descriptor (h)") }
                    let results = try await opening.openFile(fd, options: call.arguments[1].stringDictionary ?? [:], sender: call.sender)
                    return [.vardict(results.dictionary)]
                }),
                Method(ContractSignature.contentTypeForFile, handler: .async { call in
                    guard case .unixFD(let fd) = call.arguments[0] else { throw DBusError(.invalidArgs, "fd must be a file descriptor (h)") }
                    return [.string(try await queries.contentType(of: fd, name: call.string(1), sender: call.sender))]
                }),
                Method(ContractSignature.handlersForType, handler: .async { call in [.strings(await queries.handlers(forType: call.string(0), sender: call.sender))] }),
                Method(ContractSignature.defaultHandlerForType, handler: .async { call in [.string(await queries.handlers(forType: call.string(0), sender: call.sender).first ?? "")] }),
                Method(ContractSignature.defaultHandlerOrigin, handler: .async { call in [.vardict(try await queries.defaultHandlerOrigin(call.string(0), sender: call.sender).dictionary)] }),
                Method(ContractSignature.setDefaultHandlerForType, handler: .async { call in
                    try await callers.refuseSandboxed(call.sender, "set the default handler of a content type")
                    try await queries.setDefault(type: call.string(0), desktopID: DesktopID(fileName: call.string(1)), sender: call.sender)
                    return []
                }),
                Method(ContractSignature.launchImageForURL, handler: Self.query(queries) { call in queries.launchImage(for: call.string(0)) } reply: { [.string($0)] }),
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

    /// A query method: answered inline on the loop thread, or — under query privacy, for a
    /// caller not identified yet — in a task once the caller is known.
    static func query<T>(_ queries: Queries, _ answer: @escaping @Sendable (MethodCall) -> (QueryScope) throws(OpenFailure) -> T,
                         reply: @escaping @Sendable (T) -> [DBusValue]) -> MethodHandler {
        .inlineOrAsync(
            inline: { call in try queries.queryNow(call.sender, answer(call)).map(reply) },
            async: { call in reply(try await queries.query(call.sender, answer(call))) })
    }
}
