import CDBus

/// A method call waiting for its reply. Lives on the loop thread, in ``ConnectionCore/pendingCalls``
/// under its serial; resumed exactly once: by its reply (matched by ``ConnectionCore/filter(_:)``),
/// when its time runs out (``ConnectionCore/expireCalls(now:)``) or by teardown. No libdbus pending
/// call: that one built a timeout error message, a timeout and a notify for each call.
final class PendingCall {
    /// Who waits: a caller of the reply message, or one of its outcome alone (nil: it returned).
    enum Waiter {
        case message(CheckedContinuation<Message, any Error>)
        case outcome(UnsafeContinuation<DBusError?, Never>)
        /// A call started now and awaited later (``StartedCall``).
        case started(StartedCall)

        func resume(throwing error: DBusError) {
            switch self {
            case .message(let c): c.resume(throwing: error)
            case .outcome(let c): c.resume(returning: error)
            case .started(let call): call.end(error)
            }
        }
    }

    unowned let core: ConnectionCore
    /// The call's serial, which its reply names.
    let serial: UInt32
    /// When its time runs out (``monotonicMilliseconds()``); nil: never.
    let deadline: Int64?
    private var waiter: Waiter?

    init(core: ConnectionCore, serial: UInt32, deadline: Int64?, waiter: Waiter) {
        self.core = core
        self.serial = serial
        self.deadline = deadline
        self.waiter = waiter
    }

    /// Called on the loop thread with the call's reply (a reference of its own, dropped here), or
    /// with nil when its time ran out (`NoReply`, as libdbus says it).
    func complete(_ received: OpaquePointer?) {
        guard let w = waiter else { return }
        waiter = nil
        core.pendingCalls.removeValue(forKey: serial)
        guard let reply = received else {
            w.resume(throwing: DBusError(.noReply, Self.noReplyText))
            return
        }
        defer { dbus_message_unref(reply) }
        switch w {
        case .outcome(let c):
            c.resume(returning: Self.failure(of: reply))
        case .started(let call):
            call.end(Self.failure(of: reply))
        case .message(let c):
            let message: Message
            do { message = try core.decode(reply) } catch {
                c.resume(throwing: error)
                return
            }
            if let error = message.error {
                c.resume(throwing: error)
            } else {
                c.resume(returning: message)
            }
        }
    }

    /// Resumes the caller with `error` (teardown); a reply that comes after is dropped.
    func fail(_ error: DBusError) {
        guard let w = waiter else { return }
        waiter = nil
        w.resume(throwing: error)
    }

    /// What a call whose time ran out fails with (libdbus's words for its own timeout).
    static let noReplyText = "Did not receive a reply. Possible causes include: the remote application did not send a reply, "
        + "the message bus security policy blocked the reply, the reply timeout expired, or the network connection was broken."
}

extension ConnectionCore {
    /// Sends a method call and resumes `continuation` with its reply. Loop thread only.
    func startCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        arguments: [DBusValue], timeoutMilliseconds: Int32, noReply: Bool,
        continuation: CheckedContinuation<Message, any Error>?
    ) {
        guard let conn, running else {
            continuation?.resume(throwing: DBusError(.disconnected, "the D-Bus connection is closed"))
            return
        }
        guard let m = CStringCalls.methodCall(destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue) else {
            continuation?.resume(throwing: DBusError(.noMemory, "out of memory"))
            return
        }
        defer { dbus_message_unref(m) }
        do { try Marshal.append(arguments, to: m) } catch {
            continuation?.resume(throwing: error)
            return
        }
        guard let continuation, !noReply else {
            dbus_message_set_no_reply(m, 1)
            dbus_connection_send(conn, m, nil)
            return
        }
        startCall(m, timeoutMilliseconds: timeoutMilliseconds, waiter: .message(continuation))
    }

    /// Sends the method call `m`, built, and resumes `waiter` with its reply, or with `NoReply` when
    /// none came within `timeoutMilliseconds` (libdbus's: -1 its default, `CDBUS_TIMEOUT_INFINITE`
    /// never). Loop thread only.
    func startCall(_ m: OpaquePointer, timeoutMilliseconds: Int32, waiter: PendingCall.Waiter) {
        guard let conn, running, dbus_connection_get_is_connected(conn) != 0 else {
            waiter.resume(throwing: DBusError(.disconnected, "the D-Bus connection is closed"))
            return
        }
        var serial: UInt32 = 0
        guard dbus_connection_send(conn, m, &serial) != 0 else {
            waiter.resume(throwing: DBusError(.noMemory, "out of memory"))
            return
        }
        // The reply is dispatched on this thread, later: registered now, it finds the call.
        let deadline = Self.deadline(timeoutMilliseconds)
        pendingCalls[serial] = PendingCall(core: self, serial: serial, deadline: deadline, waiter: waiter)
        if let deadline, deadline < nextCallDeadline { nextCallDeadline = deadline }
    }

    /// When a call made now with `timeoutMilliseconds` stops waiting (libdbus's meaning); nil: never.
    static func deadline(_ timeoutMilliseconds: Int32) -> Int64? {
        if timeoutMilliseconds == CDBUS_TIMEOUT_INFINITE { return nil }
        let wait = timeoutMilliseconds == -1 ? 25_000 : Int64(max(timeoutMilliseconds, 0))
        return monotonicMilliseconds() + wait
    }

    /// Sends a signal. Loop thread only.
    func sendSignal(path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [DBusValue], destination: BusName?) {
        guard let conn, running else { return }
        guard let m = CStringCalls.signal(path.rawValue, interface.rawValue, member.rawValue) else { return }
        defer { dbus_message_unref(m) }
        if let destination { CStringCalls.setDestination(m, destination.rawValue) }
        do { try Marshal.append(arguments, to: m) } catch {
            logger.error("signal \(interface).\(member) not sent: \(error)")
            return
        }
        dbus_connection_send(conn, m, nil)
    }

    /// Sends a method return. Loop thread only.
    func sendReply(_ to: ReplyAddress, _ values: [DBusValue]) {
        guard let conn, !to.noReply else { return }
        guard let m = dbus_message_new(CDBUS_MESSAGE_TYPE_METHOD_RETURN) else { return }
        defer { dbus_message_unref(m) }
        dbus_message_set_no_reply(m, 1)
        _ = dbus_message_set_reply_serial(m, to.serial)
        if let sender = to.sender { CStringCalls.setDestination(m, sender) }
        do { try Marshal.append(values, to: m) } catch {
            logger.error("reply not sent: \(error)")
            sendError(to, DBusError(.failed, "internal error: the reply could not be built (\(error.message))"))
            return
        }
        dbus_connection_send(conn, m, nil)
    }

    /// Sends an error reply. Loop thread only.
    func sendError(_ to: ReplyAddress, _ error: DBusError) {
        guard let conn, !to.noReply else { return }
        guard let m = dbus_message_new(CDBUS_MESSAGE_TYPE_ERROR) else { return }
        defer { dbus_message_unref(m) }
        dbus_message_set_no_reply(m, 1)
        CStringCalls.setErrorName(m, error.name.rawValue)
        _ = dbus_message_set_reply_serial(m, to.serial)
        if let sender = to.sender { CStringCalls.setDestination(m, sender) }
        let text = error.message.utf8.contains(0) ? String(error.message.unicodeScalars.filter { $0 != "\0" }) : error.message
        try? Marshal.append([.string(text)], to: m)
        dbus_connection_send(conn, m, nil)
    }
}
