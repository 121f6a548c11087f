import DBus

/// A signal of the contract: one declaration gives its emitter (``arguments``) and its reader
/// (``init(arguments:)``).
public protocol ContractSignal: Sendable {
    /// The interface the signal belongs to (the main one unless said otherwise).
    static var interface: InterfaceName { get }
    /// The signal's member name on ``interface``.
    static var member: MemberName { get }
    /// Its arguments as declared: names (introspection) and types, those of ``arguments``.
    static var declaredArguments: [Argument] { get }
    /// The signal's body.
    var arguments: [DBusValue] { get }
    /// Reads a received body; nil when it does not have the contract's signature.
    init?(arguments: [DBusValue])
}

extension ContractSignal {
    public static var interface: InterfaceName { Contract.interface }

    /// The signal's declaration, for an exported interface's introspection.
    public static var declaration: SignalDeclaration { SignalDeclaration(member, arguments: declaredArguments) }

    /// Reads `message` when it is this signal.
    public init?(_ message: Message) {
        guard message.kind == .signal, message.interface == Self.interface, message.member == Self.member else { return nil }
        self.init(arguments: message.body)
    }
}

/// `Response(u code, a{sv} results)` on a request object: the handler's answer (or why there
/// is none), sent to the caller only, exactly once.
public struct Response: ContractSignal, Equatable {
    public static let interface = Contract.requestInterface
    public static let member: MemberName = "Response"
    public static let declaredArguments = [Argument("code", "u"), Argument("results", "a{sv}")]

    /// Keys of `results`: the service sets `error-name` and `error-message` when the code is not
    /// success; the handler's own keys come as it sent them in `Reply`.
    public enum Key {
        /// `error-name` (s): why the request failed, as an error name.
        public static let errorName = "error-name"
        /// `error-message` (s): why, for a person.
        public static let errorMessage = "error-message"
        /// `activation-token` (s): a token the handler got from its compositor (Wayland
        /// `XDG_ACTIVATION_TOKEN`, or an X11 startup id) so that the caller's window may take
        /// focus when the answer comes; a documented key of `Reply` and `ProvideDocuments`.
        public static let activationToken = "activation-token"
    }

    public var code: UInt32
    public var results: [String: DBusValue]

    public init(code: UInt32, results: [String: DBusValue]) {
        self.code = code
        self.results = results
    }

    public init?(arguments a: [DBusValue]) {
        guard a.count == 2, case .uint32(let code) = a[0], let results = a[1].stringDictionary else { return nil }
        self.init(code: code, results: results.mapValues(\.unwrapped))
    }

    public var arguments: [DBusValue] { [.uint32(code), .vardict(results)] }
}

/// `URLHandled(s url, s scheme, s handler, a{sv} details)`: a URL was opened.
public struct URLHandled: ContractSignal, Equatable {
    public static let member: MemberName = "URLHandled"
    public static let declaredArguments = [Argument("url", "s"), Argument("scheme", "s"), Argument("handler", "s"), Argument("details", "a{sv}")]

    /// The detail keys.
    public enum Key {
        /// `source` (s): the caller's app id, "" when unknown.
        public static let source = "source"
        /// `pid` (u): the handler's pid, when known.
        public static let pid = "pid"
        /// `method` (s): the contract method that opened it.
        public static let method = "method"
        /// `launch` (s): ``Launch`` raw value.
        public static let launch = "launch"
        /// `launch-image` (s): the image shown, "" when none.
        public static let launchImage = "launch-image"
        /// `content-type` (s): `OpenFile`: the document's type (the URL is its Inbox copy's `file://` URL).
        public static let contentType = "content-type"
    }

    /// How the handler was started (`launch` detail).
    public enum Launch: String, Sendable {
        case spawn
        case dbusActivation = "dbus-activation"
    }

    public var url: String
    public var scheme: String
    public var handler: String
    public var details: [String: DBusValue]

    public init(url: String, scheme: String, handler: String, details: [String: DBusValue]) {
        self.url = url
        self.scheme = scheme
        self.handler = handler
        self.details = details
    }

    public init?(arguments a: [DBusValue]) {
        guard a.count == 4, let url = a[0].string, let scheme = a[1].string, let handler = a[2].string,
              let details = a[3].stringDictionary else { return nil }
        self.init(url: url, scheme: scheme, handler: handler, details: details.mapValues(\.unwrapped))
    }

    public var arguments: [DBusValue] { [.string(url), .string(scheme), .string(handler), .vardict(details)] }

    /// The `source` detail ("" when the caller was not identified).
    public var source: String { details[Key.source]?.string ?? "" }
    /// The `pid` detail.
    public var pid: UInt32? { details[Key.pid]?.integer.flatMap { UInt32(exactly: $0) } }
}

/// `URLFailed(s url, s error_name, s message)`: opening a URL failed.
public struct URLFailed: ContractSignal, Equatable {
    public static let member: MemberName = "URLFailed"
    public static let declaredArguments = [Argument("url", "s"), Argument("error_name", "s"), Argument("message", "s")]
    public var url: String
    public var errorName: String
    public var message: String

    public init(url: String, errorName: String, message: String) {
        self.url = url
        self.errorName = errorName
        self.message = message
    }

    public init?(arguments a: [DBusValue]) {
        guard a.count == 3, let url = a[0].string, let name = a[1].string, let message = a[2].string else { return nil }
        self.init(url: url, errorName: name, message: message)
    }

    public var arguments: [DBusValue] { [.string(url), .string(errorName), .string(message)] }
}

/// `HandlersChanged(as schemes)`: the handlers of these schemes changed.
public struct HandlersChanged: ContractSignal, Equatable {
    public static let member: MemberName = "HandlersChanged"
    public static let declaredArguments = [Argument("schemes", "as")]
    public var schemes: [String]

    public init(schemes: [String]) { self.schemes = schemes }

    public init?(arguments a: [DBusValue]) {
        guard a.count == 1, let items = a[0].arrayElements else { return nil }
        var schemes: [String] = []
        for item in items {
            guard let s = item.string else { return nil }
            schemes.append(s)
        }
        self.init(schemes: schemes)
    }

    public var arguments: [DBusValue] { [.strings(schemes)] }
}

extension Connection {
    /// Emits `signal` from the contract's object (or `path`), to everyone or to `destination` only.
    public func emit<S: ContractSignal>(_ signal: S, path: ObjectPath = Contract.objectPath, to destination: BusName? = nil) throws(DBusError) {
        try emit(path: path, interface: S.interface, member: S.member, signal.arguments, destination: destination)
    }

    /// Emits `signal` as ``emit(_:path:to:)`` does, with the reply of the method call the current
    /// task handles, just after it (``Connection/emitWithReply(path:interface:member:_:destination:)``).
    public func emitWithReply<S: ContractSignal>(_ signal: S, path: ObjectPath = Contract.objectPath, to destination: BusName? = nil) throws(DBusError) {
        try emitWithReply(path: path, interface: S.interface, member: S.member, signal.arguments, destination: destination)
    }
}

extension MatchRule {
    /// Every signal of the contract's interface (from whoever owns the bus name).
    public static var contractSignals: MatchRule { MatchRule(interface: Contract.interface) }
}
