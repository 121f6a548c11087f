import CDBus

/// A method return whose body is marshalled once (``MethodHandler/inlineEncoded(_:)``): a
/// large answer that many calls share — a dictionary of variants, say — is built a single time,
/// and each call it answers copies the message (a copy of its bytes) and addresses the copy,
/// rather than marshalling the values again.
///
/// The message it holds is never sent or changed, only copied (`dbus_message_copy` reads it),
/// which is what makes it safe to share between threads.
public final class EncodedReply: @unchecked Sendable {
    let template: OpaquePointer
    /// The types of the values, in order.
    public let types: [DBusType]

    /// Marshals `values` (validated first, as any reply's).
    public init(_ values: [DBusValue]) throws(DBusError) {
        for v in values { try v.validate() }
        guard let m = dbus_message_new(CDBUS_MESSAGE_TYPE_METHOD_RETURN) else {
            throw DBusError(.noMemory, "out of memory while building a D-Bus message")
        }
        dbus_message_set_no_reply(m, 1)
        do { try Marshal.append(values, to: m) } catch {
            dbus_message_unref(m)
            throw error
        }
        template = m
        types = values.map(\.type)
    }

    deinit { dbus_message_unref(template) }
}

extension ConnectionCore {
    /// Sends `reply` (a copy of it) as the return of the call at `to`. Loop thread only.
    func sendReply(_ to: ReplyAddress, encoded reply: EncodedReply) {
        guard let conn, !to.noReply else { return }
        guard let m = dbus_message_copy(reply.template) else { return }
        defer { dbus_message_unref(m) }
        _ = dbus_message_set_reply_serial(m, to.serial)
        if let sender = to.sender { CStringCalls.setDestination(m, sender) }
        dbus_connection_send(conn, m, nil)
    }
}
