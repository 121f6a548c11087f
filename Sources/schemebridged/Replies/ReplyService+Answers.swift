import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Answers that do not come from `Reply`: a pick's provider (``ProvideDocuments``, checked by
/// ``pending(token:sender:)``) and a share's outcome, decided by the service.
extension ReplyService {
    /// The pending request `token` answers, when `sender` is its launched handler (nothing is
    /// taken): `NoSuchRequest`, or `NotTheHandler` for anyone else.
    func pending(token: String, sender: String) async throws -> RequestTable.Request {
        if let pending = table.request(token: token), pending.handler == nil { await waitForStart(pending.id) }
        guard let request = table.request(token: token) else {
            throw ContractError.noSuchRequest("no request is waiting for this token: it was answered, closed or timed out, or never existed")
        }
        guard await isHandler(request.handler, sender: sender, pid: await pidOf(sender)) else {
            throw ContractError.notTheHandler("only the provider launched for this request (\(request.handlerID)) may answer it")
        }
        return request
    }

    /// Ends request `id` with `response` (nothing when it is already done).
    func complete(_ id: UInt64, _ response: Response) {
        guard let r = table.take(id) else { return }
        finish(r, response)
    }

    /// Ends request `id` as failed with `error` (nothing when it is already done).
    func fail(_ id: UInt64, _ error: DBusError) {
        complete(id, Response(code: ReplyCode.failed.rawValue, results: [Response.Key.errorName: .string(error.name.rawValue),
                                                                          Response.Key.errorMessage: .string(error.message)]))
    }

    /// Marks request `id` as a share going to `target` ("" while the sheet is up).
    func sharing(_ id: UInt64, target: String) {
        outcomes.sharing(id, target: target)
    }

    /// Answers request `id` from the service (a share's outcome): `code` with `results`.
    func answer(_ id: UInt64, code: ReplyCode, results: [String: DBusValue] = [:]) {
        guard let r = table.take(id) else { return }
        finish(r, Response(code: code.rawValue, results: results))
    }

    /// Fails request `id` with a contract error.
    func answer(_ id: UInt64, failure: DBusError) {
        fail(id, failure)
    }

    /// Request `id`'s handler was activated as `busName` (process `pid`): from now on its owner's
    /// connection is the handler, and its leaving the bus fails the request. A handler that left
    /// before that was recorded (between `Activate`'s reply and this) would never be seen
    /// leaving, so its absence ends the request now.
    func activated(_ id: UInt64, busName: String, pid: UInt32?) async {
        guard let owner = await ownerOf(busName) else { return fail(id, .handlerLeftBus) }
        started(id, handler: .activated(owner: owner, process: pid.map { HandlerProcess(pid: Int32(bitPattern: $0)) }))
        if await ownerOf(owner) == nil { fail(id, .handlerLeftBus) }
    }
}
