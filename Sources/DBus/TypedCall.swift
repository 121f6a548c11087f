import CDBus

extension OutgoingMessage {
    /// A method call to `destination` (none: a peer's) at `path`.
    convenience init(callTo destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName) throws(DBusError) {
        guard let m = CStringCalls.methodCall(destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue) else {
            throw Marshal.outOfMemory()
        }
        self.init(handle: m)
    }
}

extension Connection {
    /// Calls a method whose arguments `body` writes straight into the call (``MessageWriter``: the
    /// same bytes and checks as ``call(destination:path:interface:member:_:timeout:)``'s values)
    /// and returns when it returned, its reply's arguments unread: for a caller that needs only
    /// to know the call succeeded. An error reply is thrown as a ``DBusError`` with its name and
    /// message; no reply within `timeout` throws `NoReply`, as the value call does.
    public func call(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        timeout: Duration = .seconds(25), body: (inout MessageWriter) throws(DBusError) -> Void
    ) async throws(DBusError) {
        let message = try OutgoingMessage(callTo: destination, path: path, interface: interface, member: member)
        var writer = MessageWriter(message: message.handle)
        try body(&writer)
        let ms = Self.milliseconds(timeout)
        let failure: DBusError? = await withUnsafeContinuation { (cont: UnsafeContinuation<DBusError?, Never>) in
            core.performCall({ [core] in core.startCall(message.handle, timeoutMilliseconds: ms, waiter: .outcome(cont)) },
                         orElse: { cont.resume(returning: DBusError(.disconnected, "the D-Bus connection is closed")) })
        }
        if let failure { throw failure }
    }
}

extension PendingCall {
    /// What an error reply says (its name, its first argument when that is a string), or nil for a
    /// method return, its arguments unread (the error ``Message/error`` makes of the same reply).
    static func failure(of reply: OpaquePointer) -> DBusError? {
        guard dbus_message_get_type(reply) == CDBUS_MESSAGE_TYPE_ERROR else { return nil }
        let name = dbus_message_get_error_name(reply).map { ErrorName(unchecked: String(cString: $0)) } ?? .failed
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(reply, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_STRING else {
            return DBusError(name, "")
        }
        return DBusError(name, Marshal.text(&iter))
    }
}
