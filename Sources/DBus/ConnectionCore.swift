import CDBus
import Logging
import Synchronization
import Glibc
import LinuxSystem

/// Where a reply goes: the call's serial and sender.
struct ReplyAddress: Sendable {
    let serial: UInt32
    let sender: String?
    let noReply: Bool
}

/// The state of one connection. The libdbus handle and every mutable field below are
/// touched only by the connection's own loop thread; other threads reach it through
/// ``JobQueue/submit(_:orElse:)``. That confinement is what makes it `@unchecked Sendable`.
final class ConnectionCore: @unchecked Sendable {
    let queue = JobQueue()
    /// The loop thread as a task executor (``LoopExecutor``).
    let executor: LoopExecutor
    /// ``executor`` as the runtime takes it, made once (not for each step run).
    let unownedExecutor: UnownedTaskExecutor
    let logger: Logger

    // Loop-thread state.
    var conn: OpaquePointer?
    var running = true
    /// Set when this side closed the connection (then its end is not reported as a loss).
    var closedLocally = false
    var watches: [OpaquePointer] = []
    /// Descriptors polled beside libdbus's, each with what runs when it is readable (``Connection/watchReadable(_:_:)``).
    var readable: [(fd: Int32, handler: JobQueue.Job)] = []
    /// Every registered timeout, with its next deadline (monotonic ms), nil when disabled.
    var timeouts: [OpaquePointer: Int64?] = [:]
    /// The exported objects; changed through ``setObject(_:at:)`` only (it forgets their ``routes``).
    private(set) var objects: [ObjectPath: ExportedObject] = [:]
    /// The last calls' routes to declared methods, oldest first (``MethodRoute``).
    var routes: [MethodRoute] = []
    var subscribers: [UInt64: (rule: MatchRule, continuation: AsyncStream<Message>.Continuation)] = [:]
    var nextSubscriberID: UInt64 = 1
    /// The calls waiting for a reply, by serial (``PendingCall``).
    var pendingCalls: [UInt32: PendingCall] = [:]
    /// No pending call's time runs out before this (monotonic ms; `.max`: none has a deadline).
    /// Lowered as calls start, raised when the calls are looked over (``expireCalls(now:)``).
    var nextCallDeadline = Int64.max
    var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    /// Tasks waiting for the loop's next quiet turn (``Connection/quietTurn()``).
    var quiet = QuietTurns()
    var signatureCache: [String: [DBusType]] = [:]
    var uniqueName = ""
    /// The loop thread (`pthread_self`), once it runs: ``isIdleLoopThread()`` is asked from any thread.
    let loopThread = Atomic<UInt>(0)
    /// The loop's `poll`s so far (for tests).
    let polls = Atomic<Int>(0)
    /// Turns in a row that ran jobs queued by the turn before without polling the bus between them.
    static let turnsWithoutPoll = 8
    /// While the loop runs the work it took from the queue: whether a job asked of the connection
    /// (not a step of a task, ``JobQueue/Work/isAsk``) is still to run after the one running now.
    /// Nil at any other time (dispatching a message, handling a watch, a timeout or a readable
    /// descriptor, polling). Loop thread only (``perform(_:orElse:)``).
    private var asksAfterCurrent: Bool?
    /// Whether the loop is inside libdbus's dispatch of a message (a handler's synchronous part).
    /// Loop thread only (``performCall(_:orElse:)``).
    private var dispatching = false
    /// Whether the loop is telling a call of ours its reply, inside libdbus's dispatch: what is asked
    /// then goes out at once when nothing asked before it waits (``perform(_:orElse:)``). Loop thread only.
    private var completingReply = false

    init(logger: Logger) {
        self.logger = logger
        executor = LoopExecutor(queue: queue)
        unownedExecutor = executor.asUnownedTaskExecutor()
    }

    // MARK: Opening

    /// Opens a private connection to `address` and registers with the bus. Blocking;
    /// runs on the loop thread before the loop starts.
    func open(address: String) throws(DBusError) {
        let c = try Self.openRegistered(address: address)
        conn = c
        uniqueName = dbus_bus_get_unique_name(c).map { String(cString: $0) } ?? ""
        installCallbacks(c)
    }

    /// A private libdbus connection to `address`, registered with the bus (`Hello`), that does
    /// not exit the process when the bus goes away. Blocking.
    static func openRegistered(address: String) throws(DBusError) -> OpaquePointer {
        var err = DBusError_C()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let c = address.withCString({ dbus_connection_open_private($0, &err) }) else {
            throw error(from: &err, fallback: "cannot connect to the bus at \(address)")
        }
        dbus_connection_set_exit_on_disconnect(c, 0)
        guard dbus_bus_register(c, &err) != 0 else {
            let e = error(from: &err, fallback: "cannot register with the bus at \(address)")
            dbus_connection_close(c)
            dbus_connection_unref(c)
            throw e
        }
        return c
    }

    static func error(from err: inout DBusError_C, fallback: String) -> DBusError {
        guard dbus_error_is_set(&err) != 0 else { return DBusError(.failed, fallback) }
        let nameText = cdbus_error_name(&err).map { String(cString: $0) } ?? ""
        let message = cdbus_error_message(&err).map { String(cString: $0) } ?? fallback
        let name = (try? ErrorName(nameText)) ?? .failed
        return DBusError(name, message)
    }

    private var unmanagedSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func core(_ raw: UnsafeMutableRawPointer?) -> ConnectionCore {
        Unmanaged<ConnectionCore>.fromOpaque(raw!).takeUnretainedValue()
    }

    private func installCallbacks(_ c: OpaquePointer) {
        dbus_connection_set_watch_functions(
            c,
            { watch, data in
                ConnectionCore.core(data).watches.append(watch!)
                return 1
            },
            { watch, data in
                let core = ConnectionCore.core(data)
                core.watches.removeAll { $0 == watch }
            },
            { _, _ in },  // enabled state is read before every poll
            unmanagedSelf, nil)
        dbus_connection_set_timeout_functions(
            c,
            { timeout, data in
                ConnectionCore.core(data).timeoutChanged(timeout!)
                return 1
            },
            { timeout, data in
                ConnectionCore.core(data).timeouts.removeValue(forKey: timeout!)
            },
            { timeout, data in
                ConnectionCore.core(data).timeoutChanged(timeout!)
            },
            unmanagedSelf, nil)
        dbus_connection_set_wakeup_main_function(c, { data in ConnectionCore.core(data).queue.wakeIfWaiting() }, unmanagedSelf, nil)
        dbus_connection_add_filter(
            c,
            { _, message, data in
                ConnectionCore.core(data).filter(message!)
            },
            unmanagedSelf, nil)
    }

    private func timeoutChanged(_ t: OpaquePointer) {
        if dbus_timeout_get_enabled(t) != 0 {
            timeouts[t] = .some(monotonicMilliseconds() + Int64(dbus_timeout_get_interval(t)))
        } else {
            timeouts[t] = .some(nil)
        }
    }

    // MARK: The loop

    /// Runs until the connection is closed or lost. Called on the loop thread.
    func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        var fds: [pollfd] = []
        var polled: [OpaquePointer] = []
        var unpolled = 0
        var jobs: [JobQueue.Work] = []
        while running {
            queue.take(into: &jobs)
            let lastAsk = jobs.lastIndex { $0.isAsk } ?? -1
            for (i, work) in jobs.enumerated() {
                asksAfterCurrent = i < lastAsk
                run(work)
            }
            jobs.removeAll(keepingCapacity: true)
            asksAfterCurrent = nil
            if !running { break }
            dispatchIncoming()
            if !running { break }
            // Jobs queued by this turn (a task on the loop resumed by what just ran, as each step of a
            // call handled there is) run next without a zero-timeout `poll` of the bus between them,
            // for a few turns in a row: then the bus is read, so no message waits behind a busy loop.
            if unpolled < Self.turnsWithoutPoll, !queue.isEmpty {
                unpolled += 1
                continue
            }
            unpolled = 0

            fds.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: queue.wakeFD, events: Int16(POLLIN), revents: 0))
            let sources = readable
            for source in sources { fds.append(pollfd(fd: source.fd, events: Int16(POLLIN), revents: 0)) }
            let first = fds.count  // libdbus's watches from here
            for w in watches where dbus_watch_get_enabled(w) != 0 {
                let flags = dbus_watch_get_flags(w)
                var events: Int16 = 0
                if flags & CDBUS_WATCH_READABLE != 0 { events |= Int16(POLLIN) }
                if flags & CDBUS_WATCH_WRITABLE != 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: dbus_watch_get_unix_fd(w), events: events, revents: 0))
                polled.append(w)
            }
            let timeout = quiet.timeout(queue.prepareToWait() ? nextTimeoutMilliseconds() : 0)
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n > 0 { HotCode.prefetch() }  // a message (or work) to handle: its code from the caches, where the program keeps it warm
            polls.add(1, ordering: .relaxed)
            queue.woke(drain: n > 0 && fds[0].revents != 0)
            quiet.afterPoll(timeout: timeout, ready: n)
            if n < 0 {
                if errno == EINTR { continue }
                logger.error("poll failed: errno \(errno); closing the D-Bus connection")
                break
            }
            if fds.count > first {
                for i in first..<fds.count where fds[i].revents != 0 {
                    let w = polled[i - first]
                    guard watches.contains(w) else { continue }  // removed by an earlier handle
                    let r = Int32(fds[i].revents)
                    var flags: UInt32 = 0
                    if r & Int32(POLLIN) != 0 { flags |= CDBUS_WATCH_READABLE }
                    if r & Int32(POLLOUT) != 0 { flags |= CDBUS_WATCH_WRITABLE }
                    if r & Int32(POLLERR) != 0 { flags |= CDBUS_WATCH_ERROR }
                    if r & Int32(POLLHUP) != 0 { flags |= CDBUS_WATCH_HANGUP }
                    dbus_watch_handle(w, flags)
                }
            }
            for (i, source) in sources.enumerated() where n > 0 && fds[1 + i].revents != 0 { source.handler() }
            fireTimeouts()
        }
        teardown()
    }

    /// Runs a job, or a step of a task on the loop (``LoopExecutor``).
    private func run(_ work: JobQueue.Work) {
        switch work {
        case .job(let job): job()
        case .step(let step): step.runSynchronously(on: unownedExecutor)
        }
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        var nearest: Int64? = nextCallDeadline == .max ? nil : nextCallDeadline
        for case let deadline? in timeouts.values {
            if nearest == nil || deadline < nearest! { nearest = deadline }
        }
        guard let nearest else { return -1 }
        let wait = nearest - monotonicMilliseconds()
        return wait <= 0 ? 0 : Int32(min(wait, Int64(Int32.max)))
    }

    private func fireTimeouts() {
        if nextCallDeadline != .max {
            let now = monotonicMilliseconds()
            if now >= nextCallDeadline { expireCalls(now: now) }
        }
        guard !timeouts.isEmpty else { return }
        let now = monotonicMilliseconds()
        // Most turns nothing is due (a pending call's timeout is seconds away): no list is made then.
        guard timeouts.values.contains(where: { $0.map { $0 <= now } ?? false }) else { return }
        let due = timeouts.compactMap { (t, d) -> OpaquePointer? in
            guard let d, d <= now else { return nil }
            return t
        }
        for t in due where timeouts[t] != nil {
            timeouts[t] = .some(now + Int64(dbus_timeout_get_interval(t)))
            dbus_timeout_handle(t)
        }
    }

    /// Fails the calls whose time ran out by `now` with `NoReply` — after the replies already read
    /// are dispatched (one read but not yet dispatched is in time, as libdbus has it) — and notes
    /// the next deadline.
    private func expireCalls(now: Int64) {
        dispatchIncoming()
        var next = Int64.max
        var due: [PendingCall] = []
        for pending in pendingCalls.values {
            guard let deadline = pending.deadline else { continue }
            if deadline <= now { due.append(pending) } else { next = min(next, deadline) }
        }
        nextCallDeadline = next
        for pending in due { pending.complete(nil) }
    }

    private func dispatchIncoming() {
        guard let conn else { return }
        dispatching = true
        defer { dispatching = false }
        while dbus_connection_get_dispatch_status(conn) == DBUS_DISPATCH_DATA_REMAINS {
            dbus_connection_dispatch(conn)
        }
    }

    /// Adds `waiter` to those of the loop's next quiet turn when the caller runs on the loop
    /// thread and the loop goes on; false otherwise (it is not added).
    func waitForQuietTurn(_ waiter: UnsafeContinuation<Void, Never>) -> Bool {
        guard loopThread.load(ordering: .relaxed) == UInt(pthread_self()), running else { return false }
        quiet.add(waiter)
        return true
    }

    /// Whether the calling thread is the loop thread and nothing else waits for it: no job
    /// queued, no message read and not yet dispatched (beside the one being handled).
    func isIdleLoopThread() -> Bool {
        guard loopThread.load(ordering: .relaxed) == UInt(pthread_self()), running, let conn else { return false }
        return queue.isEmpty && dbus_connection_get_dispatch_status(conn) != DBUS_DISPATCH_DATA_REMAINS
    }

    /// Runs `job` now when the caller is a job the loop runs — a step of a task on the loop thread
    /// (``LoopExecutor``) — and nothing asked before it waits: no job taken after the current one,
    /// none queued (steps of tasks may wait: a step has asked for nothing until it runs). Else queues it, as ``JobQueue/submit(_:orElse:)`` does (false, after `orElse`,
    /// when the loop has ended). Either way a job runs after every job queued before it, so what
    /// the connection sends keeps the order it was asked for on every thread; run now, a call or
    /// signal from a step of a handler on the loop goes out before the step goes on, not a turn of
    /// the loop later. Also now as a reply to a call of ours is told to its waiter (a reply has no
    /// reply to follow). Never now elsewhere inside libdbus's dispatch (a method's handler, an inline
    /// one's reply still to be sent), a watch or a timeout: there it is queued, for the next turn.
    @discardableResult
    func perform(_ job: @escaping JobQueue.Job, orElse: (() -> Void)? = nil) -> Bool {
        if loopThread.load(ordering: .relaxed) == UInt(pthread_self()), asksAfterCurrent == false || completingReply, running, !queue.holdsAsks {
            job()
            return true
        }
        return queue.submit(job, orElse: orElse)
    }

    /// Starts a method call (`job`, which sends it) as ``perform(_:orElse:)`` does, and also at once
    /// on the loop thread while it dispatches a message, when no job is queued: a handler's call
    /// to another peer (a device engine's, say) leaves before the handler unwinds, not a turn
    /// later. Nothing asked earlier waits behind it (no job is queued), and a call asked before
    /// the handler's reply goes before it, as asked; signals keep ``perform(_:orElse:)``'s rule (an
    /// inline handler's follow its reply).
    @discardableResult
    func performCall(_ job: @escaping JobQueue.Job, orElse: (() -> Void)? = nil) -> Bool {
        if dispatching, loopThread.load(ordering: .relaxed) == UInt(pthread_self()), running, !queue.holdsAsks {
            job()
            return true
        }
        return perform(job, orElse: orElse)
    }

    /// Stops the loop after the current iteration.
    func stop() {
        closedLocally = true
        running = false
    }

    private func teardown() {
        running = false
        // Work queued before the end still runs (replies, signals), then nothing more is taken.
        for work in queue.close() { run(work) }
        if let conn {
            dbus_connection_close(conn)
            // Lets libdbus complete outstanding pending calls and deliver Disconnected.
            while dbus_connection_dispatch(conn) == DBUS_DISPATCH_DATA_REMAINS {}
        }
        for (_, pending) in pendingCalls { pending.fail(DBusError(.disconnected, "the D-Bus connection was closed")) }
        pendingCalls.removeAll()
        nextCallDeadline = .max
        for (_, s) in subscribers { s.continuation.finish() }
        subscribers.removeAll()
        for w in disconnectWaiters { w.resume() }
        disconnectWaiters.removeAll()
        quiet.resumeAll()
        if let conn {
            dbus_connection_unref(conn)
            self.conn = nil
        }
    }

    /// Exports `object` at `path` (nil: removes what is there), forgetting the routes that led there.
    func setObject(_ object: ExportedObject?, at path: ObjectPath) {
        objects[path] = object
        if routes.contains(where: { $0.path == path }) { routes.removeAll { $0.path == path } }
    }

    // MARK: Incoming messages

    func bodyTypes(_ message: OpaquePointer) throws(DBusError) -> [DBusType] {
        guard let raw = dbus_message_get_signature(message) else { return [] }
        if raw.pointee == 0 { return [] }
        let text = String(cString: raw)
        if let cached = signatureCache[text] { return cached }
        let types: [DBusType]
        do { types = try Signature(text).types } catch { throw DBusError(.invalidArgs, error.description) }
        if signatureCache.count > 512 { signatureCache.removeAll(keepingCapacity: true) }
        signatureCache[text] = types
        return types
    }

    /// Decodes a libdbus message into a ``Message``.
    func decode(_ m: OpaquePointer) throws(DBusError) -> Message {
        try Message(libdbus: m, types: bodyTypes(m))
    }

    func filter(_ m: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(m) {
        case CDBUS_MESSAGE_TYPE_METHOD_CALL:
            handleMethodCall(m)
            return DBUS_HANDLER_RESULT_HANDLED
        case CDBUS_MESSAGE_TYPE_SIGNAL:
            if dbus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
                if !closedLocally { logger.notice("the D-Bus connection was lost") }
                running = false
                return DBUS_HANDLER_RESULT_HANDLED
            }
            if !subscribers.isEmpty { deliverSignal(m) }
            return DBUS_HANDLER_RESULT_HANDLED
        case CDBUS_MESSAGE_TYPE_METHOD_RETURN, CDBUS_MESSAGE_TYPE_ERROR:
            // A reply to a call of ours still waiting; any other (late, or not ours) is dropped.
            guard let pending = pendingCalls[dbus_message_get_reply_serial(m)] else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            // What its waiter asks as it is told (``StartedCall/whenEnded(_:)``) goes out at once: a reply has no reply to follow.
            completingReply = true
            defer { completingReply = false }
            pending.complete(dbus_message_ref(m))
            return DBUS_HANDLER_RESULT_HANDLED
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func deliverSignal(_ m: OpaquePointer) {
        let message: Message
        do { message = try decode(m) } catch {
            logger.warning("dropping a signal that could not be decoded: \(error)")
            return
        }
        for (_, s) in subscribers where s.rule.matches(message) { s.continuation.yield(message) }
    }
}

typealias DBusError_C = CDBus.DBusError
