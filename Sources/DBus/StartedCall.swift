import Synchronization

/// A method call sent when it was made (``Connection/start(destination:path:interface:member:timeout:body:)``)
/// whose outcome is awaited later, or never: for a caller that has more to do before it needs
/// to know how the call went (answer its own caller, say). The outcome is kept until asked.
public final class StartedCall: Sendable {
    private enum State {
        /// No outcome yet; who waits for it, and what runs when it comes, if anything.
        case pending(UnsafeContinuation<DBusError?, Never>?, then: (@Sendable (DBusError?) -> Void)?)
        /// The outcome: nil when the call returned, else its error.
        case ended(DBusError?)
    }

    private let state = Mutex<State>(.pending(nil, then: nil))

    init() {}

    /// How the call went: nil when it returned (its arguments unread), else its error reply as a
    /// ``DBusError``, `NoReply` when its timeout passed, `Disconnected` when the connection closed.
    /// Asked once: a second caller would wait for good.
    public func outcome() async -> DBusError? {
        await withUnsafeContinuation { (waiter: UnsafeContinuation<DBusError?, Never>) in
            let ended = state.withLock { state -> DBusError?? in
                switch state {
                case .ended(let outcome): return .some(outcome)
                case .pending(_, let then): state = .pending(waiter, then: then); return .none
                }
            }
            if case .some(let outcome) = ended { waiter.resume(returning: outcome) }
        }
    }

    /// Runs `body` with the outcome as it comes — on the loop thread, in the dispatch of the
    /// reply, before whoever awaits ``outcome()`` goes on — or at once when it has come: for
    /// what must follow the reply without waiting for a task to resume (answering a caller,
    /// say). It holds the loop thread: short, never blocking. One `body` per call (a second
    /// replaces the first).
    public func whenEnded(_ body: @escaping @Sendable (DBusError?) -> Void) {
        let ended = state.withLock { state -> DBusError?? in
            switch state {
            case .ended(let outcome): return .some(outcome)
            case .pending(let waiter, _): state = .pending(waiter, then: body); return .none
            }
        }
        if case .some(let outcome) = ended { body(outcome) }
    }

    /// Records the outcome, runs what ``whenEnded(_:)`` asked, then resumes whoever waits for it
    /// (the loop thread, once).
    func end(_ outcome: DBusError?) {
        let (waiter, then) = state.withLock { state -> (UnsafeContinuation<DBusError?, Never>?, (@Sendable (DBusError?) -> Void)?) in
            guard case .pending(let waiter, let then) = state else { return (nil, nil) }
            state = .ended(outcome)
            return (waiter, then)
        }
        then?(outcome)
        waiter?.resume(returning: outcome)
    }
}

extension Connection {
    /// Sends a method call whose arguments `body` writes (as ``call(destination:path:interface:member:timeout:body:)``
    /// does) and returns without waiting for its reply: ``StartedCall/outcome()`` says how it went.
    /// Made on the loop thread while it dispatches a message, with nothing queued before it, the
    /// call has left when this returns (Connection's "Order"); else it leaves in order with what
    /// was asked before it. What `body` throws, and a name or path libdbus refuses, is thrown here.
    public func start(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        timeout: Duration = .seconds(25), body: (inout MessageWriter) throws(DBusError) -> Void
    ) throws(DBusError) -> StartedCall {
        let message = try OutgoingMessage(callTo: destination, path: path, interface: interface, member: member)
        var writer = MessageWriter(message: message.handle)
        try body(&writer)
        let (ms, started) = (Self.milliseconds(timeout), StartedCall())
        // The job holds the message until libdbus took it (a job queued runs after this returns).
        core.performCall({ [core, message] in core.startCall(message.handle, timeoutMilliseconds: ms, waiter: .started(started)) },
                         orElse: { started.end(DBusError(.disconnected, "the D-Bus connection is closed")) })
        return started
    }
}
