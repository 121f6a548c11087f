import CDBus

/// A bus connection for short-lived command-line clients: calls block the calling thread until
/// the reply comes, with no loop thread and no tasks — the cheapest way to make a few calls and
/// exit. Not `Sendable`: use it from one thread. Long-running programs, signal streams and
/// exported objects use ``Connection``.
public final class BlockingConnection {
    private let conn: OpaquePointer
    /// This connection's unique name on the bus, e.g. `:1.42`.
    public let uniqueName: String

    /// Connects to the bus at `address` and registers with it.
    public init(address: String) throws(DBusError) {
        guard !address.isEmpty, !address.utf8.contains(0) else {
            throw DBusError(.invalidArgs, "empty or invalid D-Bus address")
        }
        let c = try ConnectionCore.openRegistered(address: address)
        conn = c
        uniqueName = dbus_bus_get_unique_name(c).map { String(cString: $0) } ?? ""
    }

    deinit {
        dbus_connection_flush(conn)
        dbus_connection_close(conn)
        dbus_connection_unref(conn)
    }

    /// Calls a method and returns the reply's arguments. An error reply is thrown as a
    /// ``DBusError`` with its name and message; no reply within `timeout` throws `NoReply`.
    public func call(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) throws(DBusError) -> [DBusValue] {
        for a in arguments { try a.validate() }
        guard let m = dbus_message_new_method_call(destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue) else {
            throw DBusError(.noMemory, "out of memory")
        }
        defer { dbus_message_unref(m) }
        try Marshal.append(arguments, to: m)
        var err = DBusError_C()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let reply = dbus_connection_send_with_reply_and_block(conn, m, Connection.milliseconds(timeout), &err) else {
            throw ConnectionCore.error(from: &err, fallback: "\(member.rawValue) failed")
        }
        defer { dbus_message_unref(reply) }
        return try Marshal.decodeBody(reply, types: Message.bodyTypes(of: reply))
    }

    /// Asks the bus to route the signals that `rule` matches to this connection.
    public func addMatch(_ rule: MatchRule) throws(DBusError) {
        var err = DBusError_C()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        rule.text.withCString { dbus_bus_add_match(conn, $0, &err) }
        if dbus_error_is_set(&err) != 0 { throw ConnectionCore.error(from: &err, fallback: "AddMatch failed") }
    }

    /// Waits for the next signal (other messages are dropped). Returns nil when `timeout`
    /// passes first; throws `Disconnected` when the bus goes away.
    public func nextSignal(timeout: Duration? = nil) throws(DBusError) -> Message? {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        while true {
            while let m = dbus_connection_pop_message(conn) {
                defer { dbus_message_unref(m) }
                if dbus_message_get_type(m) == CDBUS_MESSAGE_TYPE_SIGNAL {
                    let message = try Message(libdbus: m, types: Message.bodyTypes(of: m))
                    if message.interface?.rawValue == "org.freedesktop.DBus.Local" && message.member?.rawValue == "Disconnected" {
                        throw DBusError(.disconnected, "the bus went away")
                    }
                    return message
                }
            }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - clock.now
                if left <= .zero { return nil }
                wait = Connection.milliseconds(left)
            }
            if dbus_connection_read_write(conn, wait) == 0 {
                throw DBusError(.disconnected, "the bus went away")
            }
        }
    }
}
