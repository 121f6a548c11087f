import DBus

/// One call of the contract, typed: the member, its arguments and how to read its reply.
/// Perform it with a ``SchemeBridgeClient`` (async, over ``Connection``) or a
/// ``SchemeBridgeBlockingClient`` (blocking, over ``BlockingConnection``, for the CLI):
/// `try client.perform(.canOpenURL("todolist://x"))`.
public struct ContractCall<Result: Sendable>: Sendable {
    /// The object called: the service's one object unless it is a request or pasteboard.
    public let path: ObjectPath
    /// The interface of ``member``.
    public let interface: InterfaceName
    /// The method.
    public let member: MemberName
    /// Its arguments.
    public let arguments: [DBusValue]
    /// Reads the reply's arguments.
    public let decode: @Sendable ([DBusValue]) throws(DBusError) -> Result

    public init(_ member: MemberName, _ arguments: [DBusValue], path: ObjectPath = Contract.objectPath,
                interface: InterfaceName = Contract.interface,
                decode: @escaping @Sendable ([DBusValue]) throws(DBusError) -> Result) {
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.decode = decode
    }

    /// A call of `signature` with `arguments`, whose types are the signature's inputs (checked
    /// in debug builds, and for every call of the contract by `ContractSignatureTests`).
    public init(_ signature: ContractSignature, _ arguments: [DBusValue], path: ObjectPath = Contract.objectPath,
                decode: @escaping @Sendable ([DBusValue]) throws(DBusError) -> Result) {
        assert(signature.accepts(arguments), "\(signature.name) takes \(signature.inputs.map(\.type)), not \(arguments.map(\.type))")
        self.init(signature.name, arguments, path: path, interface: signature.interface, decode: decode)
    }

    static func unexpected(_ member: MemberName, _ reply: [DBusValue]) -> DBusError {
        DBusError(.failed, "the service's reply to \(member) has the wrong signature '\(Signature(reply.map(\.type)))'")
    }
}

extension ContractCall where Result == Bool {
    /// `CanOpenURL(s) → b`.
    public static func canOpenURL(_ url: String) -> Self { .single(ContractSignature.canOpenURL, [.string(url)], \.bool) }
    /// `OpenURL(s) → b`.
    public static func openURL(_ url: String) -> Self { .single(ContractSignature.openURL, [.string(url)], \.bool) }
}

extension ContractCall where Result == String {
    /// `DefaultHandler(s) → s`.
    public static func defaultHandler(_ scheme: String) -> Self { .single(ContractSignature.defaultHandler, [.string(scheme)], \.string) }
    /// `LaunchImageForURL(s) → s`.
    public static func launchImageForURL(_ url: String) -> Self { .single(ContractSignature.launchImageForURL, [.string(url)], \.string) }
}

extension ContractCall where Result == [String] {
    /// Reads an `as`.
    static func strings(_ v: DBusValue) -> [String]? {
        v.arrayElements.flatMap { items in
            let strings = items.compactMap(\.string)
            return strings.count == items.count ? strings : nil
        }
    }

    /// `HandlersForScheme(s) → as`.
    public static func handlersForScheme(_ scheme: String) -> Self {
        .single(ContractSignature.handlersForScheme, [.string(scheme)], Self.strings)
    }
}

extension ContractCall where Result == OpenResults {
    /// `OpenURLWithOptions(s, a{sv}) → a{sv}`.
    public static func openURL(_ url: String, options: OpenOptions) -> Self {
        .single(ContractSignature.openURLWithOptions, [.string(url), .vardict(options.dictionary)]) { v in
            v.stringDictionary.map(OpenResults.init)
        }
    }
}

extension ContractCall where Result == ObjectPath {
    /// `OpenURLWithReply(s, a{sv}) → o`.
    public static func openURLWithReply(_ url: String, options: OpenOptions) -> Self {
        .single(ContractSignature.openURLWithReply, [.string(url), .vardict(options.dictionary)]) { v in
            if case .objectPath(let p) = v { return p }
            return nil
        }
    }
}

extension ContractCall where Result == Void {
    /// `Reply(s token, u code, a{sv} results)`.
    public static func reply(token: String, code: ReplyCode, results: [String: DBusValue]) -> Self {
        ContractCall(ContractSignature.reply, [.string(token), .uint32(code.rawValue), .vardict(results)]) { _ in }
    }

    /// `SetDefaultHandler(s, s)`.
    public static func setDefaultHandler(_ scheme: String, _ desktopID: String) -> Self {
        ContractCall(ContractSignature.setDefaultHandler, [.string(scheme), .string(desktopID)]) { _ in }
    }
}

extension ContractCall {
    /// A call of `signature` whose reply is one value, read by `read` (nil: wrong signature).
    static func single(_ signature: ContractSignature, _ arguments: [DBusValue], path: ObjectPath = Contract.objectPath,
                       _ read: @escaping @Sendable (DBusValue) -> Result?) -> Self {
        ContractCall(signature, arguments, path: path) { reply throws(DBusError) in
            guard reply.count == 1, let value = read(reply[0]) else { throw unexpected(signature.name, reply) }
            return value
        }
    }

    /// A call whose reply is one value, read by `read` (nil: wrong signature).
    static func single(_ member: MemberName, _ arguments: [DBusValue], path: ObjectPath = Contract.objectPath,
                       interface: InterfaceName = Contract.interface,
                       _ read: @escaping @Sendable (DBusValue) -> Result?) -> Self {
        ContractCall(member, arguments, path: path, interface: interface) { reply throws(DBusError) in
            guard reply.count == 1, let value = read(reply[0]) else { throw unexpected(member, reply) }
            return value
        }
    }
}
