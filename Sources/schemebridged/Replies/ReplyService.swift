import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The reply requests (`OpenURLWithReply`, a pick, a share) on the bus: the core's
/// ``ReplyRequests`` (who may answer, timeouts, held outcomes, a handler's end) over
/// ``RequestObjects`` — one object per request at `…/request/<id>` (interface `Request1`), one
/// `Response` per request sent to its caller only.
typealias ReplyService = ReplyRequests<RequestObjects>

/// The core's ``ReplyRequestsPort``: a request's object and `Close`, its `Response`, the bus
/// driver's answers.
struct RequestObjects: ReplyRequestsPort {
    let connection: Connection

    func export(_ id: UInt64, caller: String, close: @escaping @Sendable () -> Bool) {
        let declaration = Interface(Contract.requestInterface, methods: [
            Method(ContractSignature.close, handler: .inline { call in
                guard call.sender == caller, close() else { throw ContractError.noSuchRequest("no such request") }
                return []
            }),
        ], signals: [Response.declaration])
        try? connection.export([declaration], at: ReplyService.path(id))
    }

    func unexport(_ id: UInt64) { connection.unexport(ReplyService.path(id)) }

    func send(_ response: Response, id: UInt64, to caller: String) {
        if let destination = try? BusName(caller) { try? connection.emit(response, path: ReplyService.path(id), to: destination) }
    }

    func owner(of busName: String) async -> String? { try? await BusDriver(connection).nameOwner(busName) }
    func processID(of name: String) async -> Int32? { (try? await BusDriver(connection).processID(of: name)).map { Int32(bitPattern: $0) } }
    func roundTrip() async { _ = try? await BusDriver(connection).id() }
}

extension Response: RequestResponse {
    public init(code: UInt32) { self.init(code: code, results: [:]) }

    public init(ending: RequestEnding) {
        self.init(code: ReplyCode.failed.rawValue, results: [Key.errorName: .string(Contract.errorPrefix + ending.errorName),
                                                             Key.errorMessage: .string(ending.message)])
    }

    public mutating func name(target: String) {
        if results[ShareContract.ResultKey.target] == nil { results[ShareContract.ResultKey.target] = .string(target) }
    }
}

extension ReplyRequests where Port == RequestObjects {
    convenience init(connection: Connection) { self.init(port: RequestObjects(connection: connection)) }

    var connection: Connection { port.connection }

    static func path(_ id: UInt64) -> ObjectPath { try! ObjectPath(Contract.requestPathPrefix + "/\(id)") }

    /// Answers request `id` from the service (a share's outcome): `code` with `results`.
    func answer(_ id: UInt64, code: ReplyCode, results: [String: DBusValue] = [:]) {
        complete(id, SchemeBridgeContract.Response(code: code.rawValue, results: results))
    }

    /// Fails request `id` with a contract error.
    func answer(_ id: UInt64, failure: DBusError) { fail(id, failure) }

    /// Ends request `id` as failed with `error` (nothing when it is already done).
    func fail(_ id: UInt64, _ error: DBusError) {
        complete(id, SchemeBridgeContract.Response(code: ReplyCode.failed.rawValue, results: [SchemeBridgeContract.Response.Key.errorName: .string(error.name.rawValue),
                                                                        SchemeBridgeContract.Response.Key.errorMessage: .string(error.message)]))
    }

    /// `Reply(token, code, results)` from `sender` (`sandboxAppID`: its Flatpak app id when it is
    /// sandboxed). A reply's `activation-token` must be a string; the one the handler was started
    /// with is not handed back.
    func reply(token: String, code: UInt32, results: [String: DBusValue], sender: String, sandboxAppID: String? = nil) async throws {
        try RequestTable.Purpose.checkReplyCode(code)
        var results = results
        var handedBack: String?
        if let value = results[SchemeBridgeContract.Response.Key.activationToken] {
            guard case .string(let t) = value.unwrapped else {
                throw DBusError(.invalidArgs, "activation-token must be a string (s), the token from XDG_ACTIVATION_TOKEN or a startup id")
            }
            handedBack = t
        }
        let taken = try await takeForReply(token: token, code: code, activationToken: handedBack, sender: sender, sandboxAppID: sandboxAppID)
        if !taken.keepsToken { results[SchemeBridgeContract.Response.Key.activationToken] = nil }
        finish(taken.request, SchemeBridgeContract.Response(code: code, results: results))
    }
}
