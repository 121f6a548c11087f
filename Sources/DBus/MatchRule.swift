/// A match rule selecting signals (see the D-Bus specification, "Match Rules"). The rule is
/// sent to the bus with `AddMatch` and also applied locally to every incoming signal, so a
/// stream only ever yields what its rule selects.
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    /// `sender=`: a unique or well-known name. Locally only unique names are compared
    /// (the bus resolves well-known ones).
    public var sender: BusName?
    public var interface: InterfaceName?
    public var member: MemberName?
    /// `path=`: exactly this object.
    public var path: ObjectPath?
    /// `path_namespace=`: this object and everything below it.
    public var pathNamespace: ObjectPath?
    /// `arg0=`: the first argument is this string.
    public var arg0: String?

    public init(
        sender: BusName? = nil, interface: InterfaceName? = nil, member: MemberName? = nil,
        path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arg0 = arg0
    }

    private static func quote(_ value: String) -> String {
        // Inside a match rule value, a single quote is written as '\'' (close, escaped, reopen).
        // (Split and joined, not `replacing`: that one is _StringProcessing's, 400 KB of code a
        // start would otherwise touch for this alone.)
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// The rule's text, as sent to `org.freedesktop.DBus.AddMatch`.
    public var text: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender=\(Self.quote(sender.rawValue))") }
        if let interface { parts.append("interface=\(Self.quote(interface.rawValue))") }
        if let member { parts.append("member=\(Self.quote(member.rawValue))") }
        if let path { parts.append("path=\(Self.quote(path.rawValue))") }
        if let pathNamespace { parts.append("path_namespace=\(Self.quote(pathNamespace.rawValue))") }
        if let arg0 { parts.append("arg0=\(Self.quote(arg0))") }
        return parts.joined(separator: ",")
    }

    public var description: String { text }

    /// Whether the signal `message` is selected by this rule.
    public func matches(_ message: Message) -> Bool {
        guard matchesHeader(message) else { return false }
        if let arg0 {
            guard case .string(let s)? = message.body.first, s == arg0 else { return false }
        }
        return true
    }

    /// Whether the header of `message` is selected (everything but `arg0`): checked before a
    /// signal's body is decoded, so a signal nobody asked for costs no decoding. A rule naming
    /// the bus itself (`org.freedesktop.DBus`) compares the sender exactly: the bus driver
    /// sends with that name, and another client cannot, so no one can forge the bus's signals
    /// by sending them to us directly.
    func matchesHeader(_ message: Message) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, sender.isUnique || sender.rawValue == Self.busDriver, message.sender != sender.rawValue { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let ns = pathNamespace {
            guard let p = message.path?.rawValue else { return false }
            if ns.rawValue != "/" && p != ns.rawValue && !p.hasPrefix(ns.rawValue + "/") { return false }
        }
        return true
    }

    static let busDriver = "org.freedesktop.DBus"
}
