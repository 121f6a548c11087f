import CDBus
import Logging
import Glibc
import Synchronization

/// The reply to `org.freedesktop.DBus.RequestName`.
public enum RequestNameReply: UInt32, Sendable {
    case primaryOwner = 1, inQueue = 2, exists = 3, alreadyOwner = 4
}

/// Flags for `org.freedesktop.DBus.RequestName`.
public struct RequestNameFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let allowReplacement = RequestNameFlags(rawValue: 1)
    public static let replaceExisting = RequestNameFlags(rawValue: 2)
    public static let doNotQueue = RequestNameFlags(rawValue: 4)
}

/// A connection to a message bus.
///
/// The libdbus handle lives on one dedicated thread that runs a `poll` loop over
/// libdbus's watches and timeouts and an eventfd for wake-ups; everything else talks to
/// it through `async` methods. The connection never calls `_exit` when the bus goes away:
/// ``waitUntilDisconnected()`` returns instead, so a service can shut down cleanly.
///
/// Order: the calls, signals, replies and object changes asked of a connection take effect in
/// the order they were asked for, from whichever threads (each after everything asked before
/// it). Asked by a step of a task on the loop thread (``loopExecutor``: an `.onLoop` handler
/// past its first wait, an async handler's reply), one goes out at once — before the step goes
/// on — when nothing asked earlier still waits; else it waits behind that. Asked on any other
/// thread, or on the loop thread while it dispatches a message (a handler's synchronous part: an
/// `.inline` handler's signals follow its reply), it goes out on the loop's next turn — but for a
/// method call with a reply asked while dispatching, which goes out at once when nothing asked
/// earlier waits (a handler's call to another peer leaves before the handler unwinds; one it
/// ``start(destination:path:interface:member:timeout:body:)``s has left when `start` returns, its
/// outcome awaited later), and for what is asked as a reply to a call of ours is told (a
/// ``StartedCall/whenEnded(_:)`` body), which goes out at once when nothing asked earlier waits.
/// A step of a task waiting for the loop thread has asked for nothing yet: what is asked now does
/// not wait for it. A method's reply follows what its handler sent; ``emitWithReply(path:interface:member:_:destination:)``
/// and ``afterReply(_:)`` are for what must follow the reply.
public final class Connection: Sendable {
    let core: ConnectionCore
    /// This connection's unique name on the bus, e.g. `:1.42`.
    public let uniqueName: String

    private init(core: ConnectionCore) {
        self.core = core
        self.uniqueName = core.uniqueName
    }

    deinit { close() }

    /// The connection's loop thread as a task executor: `Task.immediate(executorPreference:)` with
    /// it runs a task there, between its waits (short, non-blocking steps only).
    public var loopExecutor: LoopExecutor { core.executor }

    /// Whether the calling thread is this connection's loop thread and nothing else waits for it
    /// (no job queued, no message read and not yet dispatched): a handler running there
    /// (``MethodHandler/onLoop(_:)``) may take a moment — a spawn — without holding up another
    /// call. False on any other thread.
    public var loopIsIdle: Bool { core.isIdleLoopThread() }

    /// Waits for the loop's next quiet turn: once it has waited for the bus and nothing came for
    /// the rest of that wait, or 1 ms from now at the latest while messages keep coming (which
    /// are handled first). For a task on the loop (``loopExecutor``) whose work after an answer
    /// it sent can wait a moment: the answer's delivery — the bus daemon, the caller — then does
    /// not wait behind that work for a core. Off the loop thread, or once the loop has ended, it
    /// returns at once.
    public func quietTurn() async {
        await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
            if !core.waitForQuietTurn(waiter) { waiter.resume() }
        }
    }

    /// Connects to the bus at `address` (e.g. `unix:path=/run/user/1000/bus`) and
    /// registers with it.
    public static func connect(
        address: String, logger: Logger = Logger(label: "dbus")
    ) async throws(DBusError) -> Connection {
        guard !address.isEmpty, !address.utf8.contains(0) else {
            throw DBusError(.invalidArgs, "empty or invalid D-Bus address")
        }
        let core = ConnectionCore(logger: logger)
        let result: Result<Connection, DBusError> = await withCheckedContinuation { cont in
            startThread(name: "dbus-loop") {
                do throws(DBusError) {
                    try core.open(address: address)
                } catch {
                    _ = core.queue.close()
                    cont.resume(returning: .failure(error))
                    return
                }
                cont.resume(returning: .success(Connection(core: core)))
                core.run()
            }
        }
        return try result.get()
    }

    /// Connects to the session bus named by the process environment.
    public static func session(logger: Logger = Logger(label: "dbus")) async throws(DBusError) -> Connection {
        guard let address = processSessionBusAddress() else {
            throw DBusError(.disconnected, "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus (start one with `dbus-run-session -- COMMAND`)")
        }
        return try await connect(address: address, logger: logger)
    }

    /// Closes the connection. Outstanding calls fail with `Disconnected`, signal streams
    /// end and ``waitUntilDisconnected()`` returns.
    public func close() {
        core.queue.submit { [core] in core.stop() }
    }

    /// True until the connection is closed or lost.
    public var isConnected: Bool { !core.queue.isClosed }

    /// Returns when the connection has been closed or the bus has gone away.
    public func waitUntilDisconnected() async {
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            core.queue.submit({ [core] in core.disconnectWaiters.append(cont) }, orElse: { cont.resume() })
        }
    }

    // MARK: Calls

    /// Calls a method and returns the reply's arguments. An error reply is thrown as a
    /// ``DBusError`` with its name and message; no reply within `timeout` throws `NoReply`.
    public func call(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        try await callMessage(destination: destination, path: path, interface: interface, member: member, arguments, timeout: timeout).body
    }

    /// Like ``call(destination:path:interface:member:_:timeout:)`` but returns the whole reply message.
    public func callMessage(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> Message {
        for a in arguments { try a.validate() }
        let ms = Self.milliseconds(timeout)
        do {
            return try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Message, any Error>) in
                core.performCall({ [core] in
                    core.startCall(destination: destination, path: path, interface: interface, member: member,
                                   arguments: arguments, timeoutMilliseconds: ms, noReply: false, continuation: cont)
                }, orElse: { cont.resume(throwing: DBusError(.disconnected, "the D-Bus connection is closed")) })
            }
        } catch {
            throw DBusError.from(error)
        }
    }

    /// Sends a method call without waiting for (or wanting) a reply.
    public func send(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        _ arguments: [DBusValue] = []
    ) throws(DBusError) {
        for a in arguments { try a.validate() }
        try submitOrThrow { [core] in
            core.startCall(destination: destination, path: path, interface: interface, member: member,
                           arguments: arguments, timeoutMilliseconds: 0, noReply: true, continuation: nil)
        }
    }

    /// A call's timeout in libdbus's milliseconds. The last two asked are kept: a caller's timeout
    /// is the same each call, and taking a `Duration` apart divides a 128-bit number in software.
    static func milliseconds(_ d: Duration) -> Int32 {
        if let kept = keptTimeouts.withLock({ kept in kept.first { $0.duration == d }?.milliseconds }) { return kept }
        let ms = millisecondsComputed(d)
        keptTimeouts.withLock { kept in kept = [kept[1], (d, ms)] }
        return ms
    }

    private static let keptTimeouts = Mutex<[(duration: Duration, milliseconds: Int32)]>([(.seconds(25), 25_000), (.seconds(25), 25_000)])

    private static func millisecondsComputed(_ d: Duration) -> Int32 {
        let (s, atto) = d.components
        if s < 0 { return 0 }
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        return ms > Int64(Int32.max) ? CDBUS_TIMEOUT_INFINITE : Int32(ms)
    }

    func submitOrThrow(_ job: @escaping @Sendable () -> Void) throws(DBusError) {
        guard core.perform(job) else { throw DBusError(.disconnected, "the D-Bus connection is closed") }
    }

    /// Polls `fd` on the loop thread beside the bus's socket, from the next turn of the loop until
    /// the connection ends, and calls `handler` there each time it is readable (it must take what
    /// made it so: the poll is level-triggered). Throws when the connection is closed.
    public func watchReadable(_ fd: Int32, _ handler: @escaping @Sendable () -> Void) throws(DBusError) {
        try submitOrThrow { [core] in core.readable.append((fd, handler)) }
    }

    // MARK: Signals

    /// Emits a signal from `path`. Throws when an argument is invalid or the connection is closed.
    public func emit(
        path: ObjectPath, interface: InterfaceName, member: MemberName, _ arguments: [DBusValue] = [],
        destination: BusName? = nil
    ) throws(DBusError) {
        for a in arguments { try a.validate() }
        try submitOrThrow { [core] in
            core.sendSignal(path: path, interface: interface, member: member, arguments: arguments, destination: destination)
        }
    }

    /// Emits a signal as ``emit(path:interface:member:_:destination:)`` does — but from an async
    /// method handler of this connection, just after the method's reply and with it (one wake-up
    /// of the loop thread for both): for a signal that reports what the call did, emitted as the
    /// handler ends. From work left for after its reply (``afterReply(_:)``), sent there and then,
    /// in order with it. Anywhere else (no handler, another connection's, after its reply), at once.
    public func emitWithReply(
        path: ObjectPath, interface: InterfaceName, member: MemberName, _ arguments: [DBusValue] = [],
        destination: BusName? = nil
    ) throws(DBusError) {
        for a in arguments { try a.validate() }
        let job: JobQueue.Job = { [core] in
            core.sendSignal(path: path, interface: interface, member: member, arguments: arguments, destination: destination)
        }
        if let batch = ReplyBatch.current, batch.core === core, batch.add(job) { return }
        try submitOrThrow(job)
    }

    /// Runs `work` on the loop thread just after the reply of the async method handler of this
    /// connection that calls it, in the same turn (its signals in the order emitted, beside
    /// ``emitWithReply(path:interface:member:_:destination:)``'s): what the caller need not wait
    /// for, such as a log line. Anywhere else (no handler, another connection's, after its reply), now.
    public func afterReply(_ work: @escaping @Sendable () -> Void) {
        if let batch = ReplyBatch.current, batch.core === core, batch.add(work) { return }
        work()
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface` at `path`.
    public func emitPropertiesChanged(
        path: ObjectPath, interface: InterfaceName, changed: [String: DBusValue], invalidated: [String] = []
    ) throws(DBusError) {
        try emit(path: path, interface: .properties, member: "PropertiesChanged",
                 [.string(interface.rawValue), .vardict(changed), .strings(invalidated)])
    }

    /// Signals selected by `rule`, as an asynchronous sequence. The match is added to the
    /// bus before this returns, so no signal sent afterwards is missed. The match is
    /// removed when the stream's consumer stops; the stream ends when the connection does.
    public func signals(matching rule: MatchRule, bufferingPolicy: AsyncStream<Message>.Continuation.BufferingPolicy = .unbounded) async throws(DBusError) -> AsyncStream<Message> {
        let (stream, continuation) = AsyncStream<Message>.makeStream(bufferingPolicy: bufferingPolicy)
        let id: UInt64 = await withCheckedContinuation { (cont: CheckedContinuation<UInt64, Never>) in
            core.queue.submit({ [core] in
                let id = core.nextSubscriberID
                core.nextSubscriberID += 1
                core.subscribers[id] = (rule, continuation)
                cont.resume(returning: id)
            }, orElse: { cont.resume(returning: 0) })
        }
        guard id != 0 else { throw DBusError(.disconnected, "the D-Bus connection is closed") }
        do {
            _ = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "AddMatch", [.string(rule.text)])
        } catch {
            core.queue.submit { [core] in core.subscribers.removeValue(forKey: id) }
            continuation.finish()
            throw error
        }
        continuation.onTermination = { [core] _ in
            core.queue.submit {
                core.subscribers.removeValue(forKey: id)
                core.startCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "RemoveMatch", arguments: [.string(rule.text)],
                               timeoutMilliseconds: 0, noReply: true, continuation: nil)
            }
        }
        return stream
    }

    // MARK: Names

    /// Asks the bus for `name`. Export objects first, then request the name, so that no
    /// caller ever finds the name without its objects.
    public func requestName(_ name: BusName, flags: RequestNameFlags = [.doNotQueue]) async throws(DBusError) -> RequestNameReply {
        let reply = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "RequestName",
                                   [.string(name.rawValue), .uint32(flags.rawValue)])
        guard case .uint32(let code)? = reply.first, let r = RequestNameReply(rawValue: code) else {
            throw DBusError(.failed, "unexpected reply to RequestName")
        }
        return r
    }

    /// Gives up `name`.
    public func releaseName(_ name: BusName) async throws(DBusError) {
        _ = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                           interface: "org.freedesktop.DBus", member: "ReleaseName", [.string(name.rawValue)])
    }

    // MARK: Objects

    /// Exports `interfaces` at `path`, replacing whatever was exported there. Takes effect
    /// before any later request made on this connection (for example ``requestName(_:flags:)``).
    public func export(_ interfaces: [Interface], at path: ObjectPath) throws(DBusError) {
        try export(InterfaceSet(interfaces), at: path)
    }

    /// Exports `interfaces`, a set built once for many objects (a request's), at `path`, as
    /// ``export(_:at:)-([Interface],_)`` does.
    public func export(_ interfaces: InterfaceSet, at path: ObjectPath) throws(DBusError) {
        let object = ExportedObject(path: path, interfaces: interfaces.table)
        try submitOrThrow { [core] in core.setObject(object, at: path) }
    }

    /// Removes the object at `path`.
    public func unexport(_ path: ObjectPath) {
        core.perform { [core] in core.setObject(nil, at: path) }
    }

    /// The introspection XML this connection reports for `path` (as `Introspect` would).
    public func introspectionXML(for path: ObjectPath) async -> String? {
        await withCheckedContinuation { (cont: CheckedContinuation<String?, Never>) in
            core.queue.submit({ [core] in
                if let object = core.objects[path] {
                    cont.resume(returning: Introspection.document(interfaces: Array(object.interfaces.values), children: core.children(of: path)))
                } else {
                    cont.resume(returning: nil)
                }
            }, orElse: { cont.resume(returning: nil) })
        }
    }
}
