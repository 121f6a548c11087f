import CDBus
/// A received D-Bus message, decoded into Swift values (no libdbus handle inside, so it
/// can travel freely between tasks).
public struct Message: Sendable {
    /// The four kinds of D-Bus message.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal
    }
    public var kind: Kind
    /// The sender's serial number for this message.
    public var serial: UInt32
    /// For replies and errors: the serial of the call answered.
    public var replySerial: UInt32
    /// The sender's unique name (`:1.42`), or nil on a peer-to-peer connection.
    public var sender: String?
    public var destination: String?
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    /// For error messages: the error's name.
    public var errorName: ErrorName?
    /// True when the caller asked for no reply.
    public var noReplyExpected: Bool
    /// The arguments, in order.
    public var body: [DBusValue]

    /// The signature of ``body``.
    public var signature: Signature { Signature(body.map(\.type)) }

    /// For error messages: the error, with the message text from the first argument.
    public var error: DBusError? {
        guard kind == .error, let name = errorName else { return nil }
        return DBusError(name, body.first?.string ?? "")
    }
}

/// A method call received by an exported object, as handed to its handler.
public struct MethodCall: Sendable {
    /// The caller's unique bus name, e.g. `:1.42`.
    public let sender: String
    public let path: ObjectPath
    public let interface: InterfaceName
    public let member: MemberName
    /// The arguments, already checked against the method's declared input signature (none for a
    /// method that reads its own: ``decoded``).
    public let arguments: [DBusValue]
    /// What a method that reads its own arguments made of them (``Method/init(_:inputs:outputs:annotations:decode:handler:)``).
    public var decoded: (any Sendable)? = nil

    /// Argument `index` as a string (the declaration guarantees the type).
    public func string(_ index: Int) -> String { arguments[index].string ?? "" }
    /// Argument `index` as a list of strings (an `as`).
    public func strings(_ index: Int) -> [String] { arguments[index].arrayElements?.compactMap(\.string) ?? [] }
    /// Argument `index` as a string-keyed dictionary (an `a{sv}`: options, results).
    public func dictionary(_ index: Int) -> [String: DBusValue] { arguments[index].stringDictionary ?? [:] }
    /// Argument `index` as a descriptor (an `h`).
    public func descriptor(_ index: Int) throws(DBusError) -> UnixFD {
        guard case .unixFD(let fd) = arguments[index] else { throw DBusError(.invalidArgs, "argument \(index) of \(member) must be a file descriptor (h)") }
        return fd
    }
    /// Argument `index` as a list of descriptors (an `ah`).
    public func descriptors(_ index: Int) -> [UnixFD] {
        (arguments[index].arrayElements ?? []).compactMap { if case .unixFD(let fd) = $0 { fd } else { nil } }
    }
    /// Argument `index` converted to `T`; throws `InvalidArgs` when it does not convert.
    public func argument<T: DBusRepresentable>(_ index: Int, as: T.Type = T.self) throws(DBusError) -> T {
        guard index < arguments.count, let v = T(dbusValue: arguments[index]) else {
            throw DBusError(.invalidArgs, "argument \(index) of \(member) is not a '\(T.dbusType.signature)'")
        }
        return v
    }
}

extension Message {
    /// Decodes a libdbus message whose body signature parses to `types`.
    init(libdbus m: OpaquePointer, types: [DBusType]) throws(DBusError) {
        self.init(libdbusHeader: m)
        body = try Marshal.decodeBody(m, types: types)
    }

    /// The header fields of a libdbus message, with an empty body.
    init(libdbusHeader m: OpaquePointer) {
        let kind: Message.Kind
        switch dbus_message_get_type(m) {
        case CDBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case CDBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case CDBUS_MESSAGE_TYPE_ERROR: kind = .error
        default: kind = .signal
        }
        self.init(
            kind: kind,
            serial: dbus_message_get_serial(m),
            replySerial: dbus_message_get_reply_serial(m),
            sender: dbus_message_get_sender(m).map { String(cString: $0) },
            destination: dbus_message_get_destination(m).map { String(cString: $0) },
            path: dbus_message_get_path(m).map { ObjectPath(unchecked: String(cString: $0)) },
            interface: dbus_message_get_interface(m).map { InterfaceName(unchecked: String(cString: $0)) },
            member: dbus_message_get_member(m).map { MemberName(unchecked: String(cString: $0)) },
            errorName: dbus_message_get_error_name(m).map { ErrorName(unchecked: String(cString: $0)) },
            noReplyExpected: dbus_message_get_no_reply(m) != 0,
            body: [])
    }

    /// The body types of a libdbus message (parsed from its signature).
    static func bodyTypes(of m: OpaquePointer) throws(DBusError) -> [DBusType] {
        guard let raw = dbus_message_get_signature(m), raw.pointee != 0 else { return [] }
        do { return try Signature(String(cString: raw)).types } catch { throw DBusError(.invalidArgs, error.description) }
    }
}
