import CDBus

/// A method call waiting for its reply. Lives on the loop thread; resumed exactly once,
/// by libdbus's notify (reply, error or timeout) or by teardown.
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
    let handle: OpaquePointer
    private var waiter: Waiter?

    init(core: ConnectionCore, handle: OpaquePointer, waiter: Waiter) {
        self.core = core
        self.handle = handle
        self.waiter = waiter
    }

    /// Called on the loop thread when libdbus completes the call.
    func complete() {
        guard let w = waiter else { return }
        waiter = nil
        core.pendingCalls.removeValue(forKey: ObjectIdentifier(self))
        defer { releaseHandle() }
        guard let reply = dbus_pending_call_steal_reply(handle) else {
            w.resume(throwing: DBusError(.noReply, "no reply"))
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

    /// Resumes the caller with `error` (teardown) and cancels the libdbus call.
    func fail(_ error: DBusError) {
        guard let w = waiter else { return }
        waiter = nil
        dbus_pending_call_cancel(handle)
        w.resume(throwing: error)
        dbus_pending_call_unref(handle)
    }

    /// Drops our reference to the libdbus handle outside libdbus's notify callback.
    private func releaseHandle() {
        core.deferredReleases.append(handle)
    }
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
        guard let m = dbus_message_new_method_call(destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue) else {
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

    /// Sends the method call `m`, built, and resumes `waiter` with its reply. Loop thread only.
    func startCall(_ m: OpaquePointer, timeoutMilliseconds: Int32, waiter: PendingCall.Waiter) {
        guard let conn, running else {
            waiter.resume(throwing: DBusError(.disconnected, "the D-Bus connection is closed"))
            return
        }
        var handle: OpaquePointer? = nil
        guard dbus_connection_send_with_reply(conn, m, &handle, timeoutMilliseconds) != 0 else {
            waiter.resume(throwing: DBusError(.noMemory, "out of memory"))
            return
        }
        guard let handle else {
            waiter.resume(throwing: DBusError(.disconnected, "the D-Bus connection is closed"))
            return
        }
        let pending = PendingCall(core: self, handle: handle, waiter: waiter)
        pendingCalls[ObjectIdentifier(pending)] = pending
        let retained = Unmanaged.passRetained(pending).toOpaque()
        dbus_pending_call_set_notify(
            handle,
            { _, data in Unmanaged<PendingCall>.fromOpaque(data!).takeUnretainedValue().complete() },
            retained,
            { data in Unmanaged<PendingCall>.fromOpaque(data!).release() })
        if dbus_pending_call_get_completed(handle) != 0 { pending.complete() }
    }

    /// Sends a signal. Loop thread only.
    func sendSignal(path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [DBusValue], destination: BusName?) {
        guard let conn, running else { return }
        guard let m = dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue) else { return }
        defer { dbus_message_unref(m) }
        if let destination { dbus_message_set_destination(m, destination.rawValue) }
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
        if let sender = to.sender { _ = dbus_message_set_destination(m, sender) }
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
        _ = dbus_message_set_error_name(m, error.name.rawValue)
        _ = dbus_message_set_reply_serial(m, to.serial)
        if let sender = to.sender { _ = dbus_message_set_destination(m, sender) }
        let text = error.message.utf8.contains(0) ? String(error.message.unicodeScalars.filter { $0 != "\0" }) : error.message
        try? Marshal.append([.string(text)], to: m)
        dbus_connection_send(conn, m, nil)
    }
}
