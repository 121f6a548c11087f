import CDBus

/// A signal whose interface, member and body are marshalled once
/// (``Connection/emit(_:path:destination:)``): each emission copies the message (a copy of its
/// bytes) and gives the copy its path and destination — two header fields appended — rather than
/// marshalling the body again. For a signal sent many times with the same body: through libdbus's
/// iterators a `(u a{sv})` signal of four entries took ~70,000 instructions to build; a copy
/// addressed so, ~15,000 in C and ~18,000 through this type (docs/PERFORMANCE.md, sessions 21 and 22).
///
/// The message it holds is never sent or changed, only copied (`dbus_message_copy` reads it),
/// which makes it safe to share between threads, as ``EncodedReply``'s.
public final class EncodedSignal: @unchecked Sendable {
    let template: OpaquePointer

    /// Marshals the signal `interface`.`member` whose body `body` writes (checked as
    /// ``Connection/emit(path:interface:member:destination:body:)`` checks it).
    public init(interface: InterfaceName, member: MemberName, body: (inout MessageWriter) throws(DBusError) -> Void) throws(DBusError) {
        guard let m = dbus_message_new(CDBUS_MESSAGE_TYPE_SIGNAL) else { throw Marshal.outOfMemory() }
        dbus_message_set_no_reply(m, 1)   // as `dbus_message_new_signal` makes every signal
        // No path yet: each copy's is appended to its header (a field set again would be rewritten in place, at more cost).
        guard interface.rawValue.withCString({ dbus_message_set_interface(m, $0) }) != 0,
              member.rawValue.withCString({ dbus_message_set_member(m, $0) }) != 0 else {
            dbus_message_unref(m)
            throw Marshal.outOfMemory()
        }
        var writer = MessageWriter(message: m)
        do { try body(&writer) } catch {
            dbus_message_unref(m)
            throw error
        }
        template = m
    }

    deinit { dbus_message_unref(template) }

    /// A copy from `path` (to `destination` alone, when given), ready to send.
    func addressed(from path: ObjectPath, to destination: BusName?) throws(DBusError) -> OutgoingMessage {
        guard let m = dbus_message_copy(template) else { throw Marshal.outOfMemory() }
        let message = OutgoingMessage(handle: m)
        guard path.rawValue.withCString({ dbus_message_set_path(m, $0) }) != 0 else { throw Marshal.outOfMemory() }
        if let destination, !CStringCalls.setDestination(m, destination.rawValue) { throw Marshal.outOfMemory() }
        return message
    }
}

extension Connection {
    /// Emits a copy of `signal` from `path` (to `destination` alone, when given), in order with
    /// every other message this connection sends.
    public func emit(_ signal: EncodedSignal, path: ObjectPath, destination: BusName? = nil) throws(DBusError) {
        let message = try signal.addressed(from: path, to: destination)
        try submitOrThrow { [core] in core.send(message) }
    }
}
