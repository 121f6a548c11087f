import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The reply requests (`OpenURLWithReply`, a pick, a share) on the bus: the core's
/// ``ReplyRequests`` (who may answer, timeouts, held outcomes, a handler's end) over
/// ``RequestObjects`` — one object per request at `…/request/<id>` (interface `Request1`), one
/// `Response` per request sent to its caller only.
typealias ReplyService = ReplyRequests<RequestObjects>

/// The core's ``ReplyRequestsPort``: a request's object and `Close`, its `Response`, the bus
/// driver's answers (a caller's pid its identity's once it has called).
struct RequestObjects: ReplyRequestsPort {
    let connection: Connection, callers: CallerCache
    /// Whose each request is, and how its `Close` ends it.
    private let closers = RequestClosers()
    /// The last `Response` sent, and its message once it repeats (a run of shares to one device).
    private let repeated = RepeatedResponses()
    /// Every request object's one interface (built once: its `Close` finds its request by the path).
    private let declaration: InterfaceSet

    init(connection: Connection, callers: CallerCache) {
        (self.connection, self.callers) = (connection, callers)
        declaration = try! InterfaceSet([Interface(Contract.requestInterface, methods: [
            Method(ContractSignature.close, handler: .inline { [closers] call in
                guard closers.close(path: call.path.rawValue, sender: call.sender) else { throw ContractError.noSuchRequest("no such request") }
                return []
            }),
        ], signals: [Response.declaration])])
    }

    func export(_ id: UInt64, caller: String, close: @escaping @Sendable () -> Bool) {
        closers.add(id, caller: caller, close: close)
        try? connection.export(declaration, at: ReplyService.path(id))
    }

    func unexport(_ id: UInt64) {
        closers.remove(id)
        connection.unexport(ReplyService.path(id))
    }

    func send(_ response: Response, id: UInt64, to caller: String) {
        guard let destination = try? BusName(caller) else { return }
        if let encoded = repeated.encoded(response) {
            try? connection.emit(encoded, path: ReplyService.path(id), destination: destination)
        } else {
            try? connection.emit(response, path: ReplyService.path(id), to: destination)
        }
    }

    func owner(of busName: String) async -> String? { try? await BusDriver(connection).nameOwner(busName) }
    func processID(of name: String) async -> Int32? { await callers.processID(of: name).map { Int32(bitPattern: $0) } }
    func roundTrip() async { _ = try? await BusDriver(connection).id() }
}

extension Response: RequestResponse {
    public init(code: UInt32) { self.init(code: code, results: [:]) }

    public init(ending: RequestEnding) {
        self.init(failure: DBusError(try! ErrorName(Contract.errorPrefix + ending.errorName), ending.message))
    }

    /// Code 1 for the user's cancel, else code 2 naming the error as the caller would get it.
    public init(error: any Error) {
        let failure = DBusError.from(error)
        if failure.name.rawValue == Contract.errorPrefix + ServiceFailure.Kind.cancelled.rawValue {
            self.init(code: ReplyCode.cancelled.rawValue)
        } else {
            self.init(failure: failure)
        }
    }

    public mutating func name(target: ChooserTargetID) {
        if results[ShareContract.ResultKey.target] == nil { results[ShareContract.ResultKey.target] = .string(target.text) }
    }
}

/// The parent of the request objects' paths.
private let requestRoot = try! ObjectPath(Contract.requestPathPrefix)

extension ReplyRequests where Port == RequestObjects {
    convenience init(connection: Connection, callers: CallerCache) { self.init(port: RequestObjects(connection: connection, callers: callers)) }

    var connection: Connection { port.connection }

    static func path(_ id: UInt64) -> ObjectPath { requestRoot.appending(number: id) }

    /// Answers request `id` from the service (a share's outcome): `code` with `results`.
    func answer(_ id: UInt64, code: ReplyCode, results: [String: DBusValue] = [:]) {
        complete(id, Response(code: code.rawValue, results: results))
    }

    /// Fails request `id` with a contract error.
    func answer(_ id: UInt64, failure: DBusError) { fail(id, failure) }

    /// Ends request `id` as failed with `error` (nothing when it is already done).
    func fail(_ id: UInt64, _ error: DBusError) { complete(id, Response(failure: error)) }

    /// `Reply(token, code, results)` from `sender` (`sandboxAppID`: its Flatpak app id when it is
    /// sandboxed). A reply's `activation-token` must be a string; the one the handler was started
    /// with is not handed back.
    func reply(token: String, code: UInt32, results: [String: DBusValue], sender: String, sandboxAppID: AppID? = nil) async throws {
        var results = results
        let handedBack = results[SchemeBridgeContract.Response.Key.activationToken]?.unwrapped
        guard handedBack == nil || handedBack?.string != nil else {
            throw DBusError(.invalidArgs, "activation-token must be a string (s), the token from XDG_ACTIVATION_TOKEN or a startup id")
        }
        let taken = try await takeForReply(token: token, code: code, activationToken: handedBack?.string, sender: sender, sandboxAppID: sandboxAppID)
        if !taken.keepsToken { results[SchemeBridgeContract.Response.Key.activationToken] = nil }
        finish(taken.request, Response(code: code, results: results))
    }
}
