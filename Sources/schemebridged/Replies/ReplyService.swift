import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// The request objects of `OpenURLWithReply`: one object per request at
/// `…/request/<id>` (interface `Request1`), one `Response` per request sent to the caller only,
/// and nothing left behind — the object, its timer and its table entry go with the response, or
/// with the caller when it leaves the bus. Who may answer is the core's ``RequestTable``'s rule.
final class ReplyService: Sendable {
    let table = RequestTable()
    let connection: Connection
    let logger: Logger

    /// The requests' timeouts (one thread for all; a finished request's is cancelled at once).
    private let timeouts: DeadlineTimer
    /// Outcomes held until published, share targets, replies waiting for a start (the core's).
    /// A share's target that exits with status 0 without replying took the items (code 0);
    /// every response of a share names its target.
    let outcomes = RequestOutcomes<Response>()
    /// What to do when a request's caller gives up before its `Response` (`Close`, or it left
    /// the bus): a device transfer the caller waits for is cancelled.
    private let givingUp = Mutex<[UInt64: @Sendable () -> Void]>([:])

    init(connection: Connection, logger: Logger) {
        self.connection = connection
        self.logger = logger
        let box = WeakBox<ReplyService>()
        timeouts = DeadlineTimer(name: "reply-timeouts") { id in box.value?.fail(id, .timedOut) }
        box.value = self
    }

    static func path(_ id: UInt64) -> ObjectPath {
        try! ObjectPath(Contract.requestPathPrefix + "/\(id)")
    }

    /// A new request for `caller`, waiting for `timeout`; its object is exported, but its
    /// outcome is held until ``publish(_:)``. `launchTokens`: the activation tokens the handler
    /// is started with (not handed back in its answer).
    func begin(caller: String, handlerID: String, launchTokens: Set<String> = [], timeout: Duration,
               purpose: RequestTable.Purpose = .reply) throws -> RequestTable.Request {
        let request: RequestTable.Request
        request = try table.open(caller: caller, handlerID: handlerID, launchTokens: launchTokens, purpose: purpose)
        let id = request.id
        outcomes.track(id)
        timeouts.schedule(id, at: .now + timeout)
        try? connection.export([declaration(id: id, caller: caller)], at: Self.path(id))
        return request
    }

    /// The method call that made request `id` failed: forget it without a response.
    func abandon(_ id: UInt64) {
        table.take(id)
        drop(id)
    }

    /// The reply naming request `id` was sent: a held outcome may go now.
    func publish(_ id: UInt64) {
        if let held = outcomes.publish(id) { send(held.outcome, id: id, to: held.caller) }
    }

    /// The handler of `id` started as `handler`.
    func started(_ id: UInt64, handler: LaunchedHandler) {
        table.started(id, handler: handler)
        outcomes.wakeStartWaiters(id)
    }

    /// Waits until request `id`'s handler start is recorded (or the request is gone): a
    /// handler may answer before the service, between starting it and noting its pid, has run.
    func waitForStart(_ id: UInt64) async {
        await outcomes.waitForStart(id) { [table] in table.request(id).map { $0.handler == nil } ?? false }
    }

    /// A spawned handler of `id` ended with `status`. Whatever it sent before it ended is read
    /// first (one round trip to the bus), so a reply sent just before exiting still counts.
    func handlerExited(_ id: UInt64, status: Int32) {
        Task {
            _ = try? await BusDriver(connection).id()
            switch HandlerExitOutcome.of(status: status, isShare: outcomes.shareTarget(id) != nil) {
            case .success: answer(id, code: .success)
            case .failed(let ending): fail(id, ending)
            }
        }
    }

    /// `name` left the bus: its requests are dropped (a caller) or failed (an activated handler).
    func nameLeft(_ name: String) {
        let (dropped, failed) = table.nameLeft(name)
        for r in dropped {
            givingUp.withLock { $0.removeValue(forKey: r.id) }?()
            drop(r.id)
        }
        for (r, ending) in failed { finish(r, Response(code: ReplyCode.failed.rawValue, results: Self.why(ending))) }
    }

    /// `Reply(token, code, results)` from `sender`.
    /// `sandboxAppID`: the sender's Flatpak app id when it is sandboxed.
    func reply(token: String, code: UInt32, results: [String: DBusValue], sender: String, sandboxAppID: String? = nil) async throws {
        try RequestTable.Purpose.checkReplyCode(code)
        try Self.checkActivationToken(results)
        if let purpose = table.request(token: token)?.purpose {
            try purpose.checkReply(code: code)
        }
        if let pending = table.request(token: token), pending.handler == nil { await waitForStart(pending.id) }
        let senderPID = await pidOf(sender)
        // An app being activated may answer from inside its Open: its bus name's owner now.
        let check = await HandlerCheck.prepared(for: table.request(token: token)?.handler, sender: sender, pid: senderPID,
                                                sandboxAppID: sandboxAppID, ownerOf: { await self.ownerOf($0) })
        try answer(token: token, code: code, results: results, check: check)
    }

    /// The request `token` names taken for its handler's reply (`check`), and answered.
    /// (Not async: release builds of this code as one coroutine crashed the compiler, signal 11
    /// in LLVM's coroutine splitting, Swift 6.3.1.)
    private func answer(token: String, code: UInt32, results: [String: DBusValue], check: HandlerCheck) throws {
        switch table.takeForReply(token: token, isHandler: { check.isHandler($0.handler) }) {
        case .failure(.noSuchRequest):
            throw ContractError.noSuchRequest("no request is waiting for this token: it was answered, closed or timed out, or never existed")
        case .failure(.notTheHandler(let handlerID)):
            throw ContractError.notTheHandler("only the handler launched for this request (\(handlerID)) may reply to it")
        case .success(let request):
            var results = results
            if case .string(let token)? = results[Response.Key.activationToken]?.unwrapped,
               !ActivationToken.handedBack(token, launchedWith: request.launchTokens) {
                // The token the handler was started with: used, and the caller's own anyway.
                results[Response.Key.activationToken] = nil
            }
            finish(request, Response(code: code, results: results))
        }
    }

    /// A reply's `activation-token`, when there is one, is a string the core accepts
    /// (``ActivationToken/isValid(_:)``): it is handed to the caller to take focus with. Refused
    /// before the request is taken, so the handler may answer again.
    static func checkActivationToken(_ results: [String: DBusValue]) throws {
        guard let value = results[Response.Key.activationToken] else { return }
        guard case .string(let token) = value.unwrapped else {
            throw DBusError(.invalidArgs, "activation-token must be a string (s), the token from XDG_ACTIVATION_TOKEN or a startup id")
        }
        if let problem = ActivationToken.problem(token) { throw DBusError(.invalidArgs, problem) }
    }

    /// Whether `sender`, whose process is `pid`, is `handler` (the core's rule, ``HandlerCheck``;
    /// this adapter asks the bus for the owner of an activating handler's name).
    func isHandler(_ handler: LaunchedHandler?, sender: String, pid: Int32?, sandboxAppID: String? = nil) async -> Bool {
        await HandlerCheck.isHandler(handler, sender: sender, pid: pid, sandboxAppID: sandboxAppID, ownerOf: { await self.ownerOf($0) })
    }

    /// Request objects exported now (for tests and leak checks).
    var pendingCount: Int { outcomes.count }

    // MARK: internals

    func fail(_ id: UInt64, _ ending: RequestEnding) {
        guard let r = table.take(id) else { return }
        finish(r, Response(code: ReplyCode.failed.rawValue, results: Self.why(ending)))
    }

    private static func why(_ ending: RequestEnding) -> [String: DBusValue] {
        [Response.Key.errorName: .string(Contract.errorPrefix + ending.errorName), Response.Key.errorMessage: .string(ending.message)]
    }

    /// Reports `response` for the taken request `r` (now or once published).
    func finish(_ r: RequestTable.Request, _ response: Response) {
        var response = response
        if let target = outcomes.shareTarget(r.id), !target.isEmpty, response.results[ShareContract.ResultKey.target] == nil {
            response.results[ShareContract.ResultKey.target] = .string(target)
        }
        timeouts.cancel(r.id)
        if outcomes.sendsNow(r.id, response, caller: r.caller) { send(response, id: r.id, to: r.caller) }
    }


    private func send(_ response: Response, id: UInt64, to caller: String) {
        if let destination = try? BusName(caller) {
            try? connection.emit(response, path: Self.path(id), to: destination)
        }
        drop(id)
    }

    /// Runs `action` if request `id`'s caller gives up (`Close`, or leaves the bus) before it is
    /// answered; never after.
    func whenCallerGivesUp(_ id: UInt64, _ action: @escaping @Sendable () -> Void) {
        givingUp.withLock { $0[id] = action }
    }

    private func drop(_ id: UInt64) {
        givingUp.withLock { _ = $0.removeValue(forKey: id) }
        outcomes.drop(id)
        timeouts.cancel(id)
        connection.unexport(Self.path(id))
    }

    func ownerOf(_ busName: String) async -> String? {
        try? await BusDriver(connection).nameOwner(busName)
    }

    func pidOf(_ name: String) async -> Int32? {
        (try? await BusDriver(connection).processID(of: name)).map { Int32(bitPattern: $0) }
    }

    /// `Request1` on a request's object: `Close()` (its caller only) and the `Response` signal.
    private func declaration(id: UInt64, caller: String) -> Interface {
        Interface(Contract.requestInterface, methods: [
            Method(ContractSignature.close, handler: .inline { [weak self] call in
                guard call.sender == caller, let self, let r = self.table.take(id) else {
                    throw ContractError.noSuchRequest("no such request")
                }
                self.givingUp.withLock { $0.removeValue(forKey: id) }?()
                self.finish(r, Response(code: ReplyCode.cancelled.rawValue, results: [:]))
                return []
            }),
        ], signals: [
            Response.declaration,
        ])
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
