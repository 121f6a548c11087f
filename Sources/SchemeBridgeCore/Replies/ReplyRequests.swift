import Synchronization

/// What a request's answer is to ``ReplyRequests``: the daemon's `Response` signal value.
public protocol RequestResponse: Sendable {
    /// A response with `code` (0 success, 1 cancelled, 2 failed) and no results.
    init(code: UInt32)
    /// Code 2, naming why (the contract error's last component and a message).
    init(ending: RequestEnding)
    /// Names a share's target (every response of a share does), unless it names one already.
    mutating func name(target: ChooserTargetID)
    /// The response ending a request that `error` stopped on the way: code 1 for the user's
    /// cancel (``ServiceFailure/Kind/cancelled``), else code 2 naming the error.
    init(error: any Error)
}

extension RequestResponse {
    /// Code 1 for a cancel, else code 2 with the failure's name (a contract error's) and message.
    public init(error: any Error) {
        guard let failure = error as? ServiceFailure else { self.init(ending: RequestEnding(errorName: "Failed", message: "\(error)")); return }
        if failure.kind == .cancelled { self.init(code: 1) } else { self.init(ending: RequestEnding(errorName: failure.kind.rawValue, message: failure.message)) }
    }
}

/// What the reply requests need from the bus; the daemon implements it.
public protocol ReplyRequestsPort: Sendable {
    associatedtype Response: RequestResponse
    /// Makes request `id`'s object for `caller`; `close` ends the request as cancelled (false:
    /// it was already done).
    func export(_ id: UInt64, caller: String, close: @escaping @Sendable () -> Bool)
    /// Removes request `id`'s object.
    func unexport(_ id: UInt64)
    /// Sends `response` to `caller` alone, as request `id`'s.
    func send(_ response: Response, id: UInt64, to caller: String)
    /// The unique name owning `busName` (nil: none, or the bus would not say).
    func owner(of busName: String) async -> String?
    /// The process of connection `name` (nil: gone, or the bus would not say).
    func processID(of name: String) async -> Int32?
    /// One round trip to the bus: whatever was sent before it has been read.
    func roundTrip() async
}

/// The reply requests (`OpenURLWithReply`, a pick, a share): one request per call, with a
/// deadline, answered once — by its handler (who may: ``HandlerCheck``), its handler's end, its
/// timeout, its caller's `Close` or the service — and nothing left behind: the object, its
/// timer and its table entry go with the response, or with the caller when it leaves the bus.
/// A response is held until the method's reply naming the request has gone out (``publish(_:)``).
public final class ReplyRequests<Port: ReplyRequestsPort>: HandlerWatcher, Sendable {
    public typealias Response = Port.Response
    /// Who asked, who may answer, with which token.
    public let table = RequestTable()
    /// Outcomes held until published, share targets, replies waiting for a start.
    public let outcomes = RequestOutcomes<Response>()
    public let port: Port
    /// The requests' timeouts (one thread for all; a finished request's is cancelled at once).
    private let timeouts: DeadlineTimer
    /// What to do when a request's caller gives up before its answer (`Close`, or it left the bus).
    private let givingUp = Mutex<[UInt64: @Sendable () -> Void]>([:])

    public init(port: Port) {
        self.port = port
        let me = WeakBox<ReplyRequests>()
        timeouts = DeadlineTimer(name: "reply-timeouts") { id in me.value?.fail(id, .timedOut) }
        me.value = self
    }

    /// A new request for `caller`, answered within `timeout`; its object is made, but its
    /// outcome is held until ``publish(_:)``. `launchTokens`: the activation tokens the handler
    /// is started with (not handed back in its answer).
    public func begin(caller: String, handlerID: ChooserTargetID?, launchTokens: Set<String> = [], timeout: Duration,
                      purpose: RequestTable.Purpose = .reply) throws(ServiceFailure) -> RequestTable.Request {
        let request = try reserve(caller: caller, handlerID: handlerID, launchTokens: launchTokens, purpose: purpose)
        begin(request, timeout: timeout)
        return request
    }

    /// A new request for `caller` taken in the table (rate-limited as ``begin(caller:handlerID:launchTokens:timeout:purpose:)``),
    /// with no object, timeout or outcome yet: ``begin(_:timeout:)`` makes them. For a call that
    /// must know it can have its request before it acts (a device share's engine call), and does
    /// the rest after.
    public func reserve(caller: String, handlerID: ChooserTargetID?, launchTokens: Set<String> = [],
                        purpose: RequestTable.Purpose = .reply) throws(ServiceFailure) -> RequestTable.Request {
        try table.open(caller: caller, handlerID: handlerID, launchTokens: launchTokens, purpose: purpose)
    }

    /// Makes `request` (``reserve(caller:handlerID:launchTokens:purpose:)``) a request answered
    /// within `timeout`: its object, its timeout, its held outcome.
    public func begin(_ request: RequestTable.Request, timeout: Duration) {
        let (id, caller) = (request.id, request.caller)
        outcomes.track(id)
        timeouts.schedule(id, at: .now + timeout)
        port.export(id, caller: caller, close: { [weak self] in self?.close(id) ?? false })
    }

    /// The method call that made request `id` failed: forget it without a response.
    public func abandon(_ id: UInt64) {
        table.take(id)
        drop(id)
    }

    /// The reply naming request `id` was sent: a held outcome may go now.
    public func publish(_ id: UInt64) {
        if let held = outcomes.publish(id) { send(held.outcome, id: id, to: held.caller) }
    }

    /// The caller closed request `id`: it ends as cancelled (false: it was already done).
    public func close(_ id: UInt64) -> Bool {
        guard let r = table.take(id) else { return false }
        givingUp.withLock { $0.removeValue(forKey: id) }?()
        finish(r, Response(code: 1))
        return true
    }

    /// The handler of `id` started as `handler`.
    public func started(_ id: UInt64, handler: LaunchedHandler) {
        table.started(id, handler: handler)
        outcomes.wakeStartWaiters(id)
    }

    /// Waits until request `id`'s handler start is recorded (or the request is gone): a
    /// handler may answer before the service, between starting it and noting its pid, has run.
    public func waitForStart(_ id: UInt64) async {
        await outcomes.waitForStart(id) { [table] in table.request(id).map { $0.handler == nil } ?? false }
    }

    /// A spawned handler of `id` ended with `status`. Whatever it sent before it ended is read
    /// first (one round trip to the bus), so a reply sent just before exiting still counts.
    public func handlerExited(_ id: UInt64, status: Int32) {
        Task {
            await port.roundTrip()
            switch HandlerExitOutcome.of(status: status, isShare: outcomes.isShare(id)) {
            case .success: complete(id, Response(code: 0))
            case .failed(let ending): fail(id, ending)
            }
        }
    }

    /// Request `id`'s handler was activated, its name owned by `owner` (process `pid`): from now
    /// on that connection is the handler, and its leaving the bus fails the request. A handler
    /// that left before that was recorded (between the owner's lookup and this) would never be
    /// seen leaving, so one more look at the bus ends the request if it is gone — asked here,
    /// answered off the caller's path (the reply naming the request need not wait for it).
    public func activated(_ id: UInt64, owner: String?, pid: UInt32?) async {
        guard let owner else { return fail(id, .handlerLeftBus) }
        started(id, handler: .activated(owner: owner, process: pid.map { HandlerProcess(pid: Int32(bitPattern: $0)) }))
        Task { if await port.owner(of: owner) == nil { fail(id, .handlerLeftBus) } }
    }

    /// `name` left the bus: its requests are dropped (a caller) or failed (an activated handler).
    public func nameLeft(_ name: String) {
        let (dropped, failed) = table.nameLeft(name)
        for r in dropped {
            givingUp.withLock { $0.removeValue(forKey: r.id) }?()
            drop(r.id)
        }
        for (r, ending) in failed { finish(r, Response(ending: ending)) }
    }

    /// Takes the request `token` names for `Reply(code)` from `sender` (its Flatpak app id
    /// `sandboxAppID` when sandboxed), which hands back `activationToken` (nil: none): the
    /// code is checked, the reply waits for the handler's start, only the handler may answer
    /// (`NoSuchRequest`, `NotTheHandler`). Returns the request, to ``finish(_:_:)``, and whether the
    /// token stays in the answer (not the one the handler was started with).
    public func takeForReply(token: String, code: UInt32, activationToken: String?, sender: String,
                             sandboxAppID: AppID? = nil) async throws(ServiceFailure) -> (request: RequestTable.Request, keepsToken: Bool) {
        try RequestTable.Purpose.checkReplyCode(code)
        if let activationToken, let problem = ActivationToken.problem(activationToken) { throw ServiceFailure(.invalidArgument, problem) }
        if let purpose = table.request(token: token)?.purpose { try purpose.checkReply(code: code) }
        if let pending = table.request(token: token), pending.handler == nil { await waitForStart(pending.id) }
        let senderPID = await port.processID(of: sender)
        // An app being activated may answer from inside its Open: its bus name's owner now.
        let check = await HandlerCheck.prepared(for: table.request(token: token)?.handler, sender: sender, pid: senderPID,
                                                sandboxAppID: sandboxAppID, ownerOf: { await self.port.owner(of: $0) })
        switch table.takeForReply(token: token, isHandler: { check.isHandler($0.handler) }) {
        case .failure(.noSuchRequest):
            throw Self.noSuchRequest
        case .failure(.notTheHandler(let label)):
            throw ServiceFailure(.notTheHandler, "only the handler launched for this request (\(label)) may reply to it")
        case .success(let request):
            // The token the handler was started with: used, and the caller's own anyway.
            return (request, activationToken.map { ActivationToken.handedBack($0, launchedWith: request.launchTokens) } ?? true)
        }
    }

    /// The pending request `token` answers, when `sender` is its launched handler (nothing is
    /// taken): `NoSuchRequest`, or `NotTheHandler` for anyone else.
    public func pending(token: String, sender: String) async throws(ServiceFailure) -> RequestTable.Request {
        if let pending = table.request(token: token), pending.handler == nil { await waitForStart(pending.id) }
        guard let request = table.request(token: token) else { throw Self.noSuchRequest }
        guard await isHandler(request.handler, sender: sender, pid: await port.processID(of: sender)) else {
            throw ServiceFailure(.notTheHandler, "only the provider launched for this request (\(request.handlerLabel)) may answer it")
        }
        return request
    }

    static var noSuchRequest: ServiceFailure {
        ServiceFailure(.noSuchRequest, "no request is waiting for this token: it was answered, closed or timed out, or never existed")
    }

    /// Whether `sender`, whose process is `pid`, is `handler` (``HandlerCheck``; the owner of an
    /// activating handler's name asked of the bus).
    public func isHandler(_ handler: LaunchedHandler?, sender: String, pid: Int32?, sandboxAppID: AppID? = nil) async -> Bool {
        await HandlerCheck.isHandler(handler, sender: sender, pid: pid, sandboxAppID: sandboxAppID, ownerOf: { await self.port.owner(of: $0) })
    }

    /// Ends request `id` with `response` (nothing when it is already done).
    public func complete(_ id: UInt64, _ response: Response) {
        guard let r = table.take(id) else { return }
        finish(r, response)
    }

    /// Ends request `id` that `error` stopped (``RequestResponse/init(error:)``: cancelled or
    /// failed; nothing when it is already done).
    public func end(_ id: UInt64, error: any Error) {
        complete(id, Response(error: error))
    }

    /// Ends request `id` as failed: `ending` says why (nothing when it is already done).
    public func fail(_ id: UInt64, _ ending: RequestEnding) {
        complete(id, Response(ending: ending))
    }

    /// Marks request `id` as a share going to `target` (nil while the sheet is up).
    public func sharing(_ id: UInt64, target: ChooserTargetID?) {
        outcomes.sharing(id, target: target)
    }

    /// Runs `action` if request `id`'s caller gives up (`Close`, or leaves the bus) before it is
    /// answered; never after.
    public func whenCallerGivesUp(_ id: UInt64, _ action: @escaping @Sendable () -> Void) {
        givingUp.withLock { $0[id] = action }
    }

    /// Request objects made and not yet answered (for tests and leak checks).
    public var pendingCount: Int { outcomes.count }

    /// Reports `response` for the taken request `r` (now or once published); a share's names its target.
    public func finish(_ r: RequestTable.Request, _ response: Response) {
        var response = response
        if let target = outcomes.shareTarget(r.id) { response.name(target: target) }
        // Sent now, its deadline goes with the rest after it (``drop(_:)``); held, at once.
        if outcomes.sendsNow(r.id, response, caller: r.caller) { send(response, id: r.id, to: r.caller) } else { timeouts.cancel(r.id) }
    }

    private func send(_ response: Response, id: UInt64, to caller: String) {
        port.send(response, id: id, to: caller)
        drop(id)
    }

    private func drop(_ id: UInt64) {
        givingUp.withLock { _ = $0.removeValue(forKey: id) }
        outcomes.drop(id)
        timeouts.cancel(id)
        port.unexport(id)
    }
}

/// A weak reference that can be handed to a `@Sendable` closure made before its target exists.
final class WeakBox<T: AnyObject & Sendable>: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private weak var stored: T?
    var value: T? {
        get { lock.withLock { _ in stored } }
        set { lock.withLock { _ in stored = newValue } }
    }
}
