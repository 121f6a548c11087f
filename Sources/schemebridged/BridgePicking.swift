import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `PickDocument`: the caller gets a request object at once; the decision (the core's one
/// pipeline: `provider` > remembered > route > the sheet) is made when the call comes in, the
/// sheet is shown and the provider started after it returned, and the outcome is the request's
/// `Response` (sent to the caller only, once). A pick is a request of the reply machinery
/// (``ReplyService``): the provider answers with its token (`ProvideDocuments`, or `Reply` with
/// 1 or 2), only the launched provider may, and its exit without an answer is code 2.
extension Bridge {
    /// How long a pick waits for its provider (the user browses in the provider's own UI).
    static let pickTimeout = Duration.seconds(3600)

    /// `PickDocument(as types, a{sv} options) → o`.
    func pick(types: [String], options rawOptions: [String: DBusValue], sender: String) async throws(DBusError) -> MethodResult {
        let options = try PickOptions(decoding: rawOptions)
        let subject = try Self.adapt { () throws(OpenFailure) in try PickSubject(types) }
        let known = await callers.caller(sender, connection: connection, registry: registry)
        let caller = Self.caller(sender, known)
        let decision = try Self.adapt { () throws(OpenFailure) in try broker.decidePick(subject, provider: options.provider, caller: caller) }
        let pending = try replies.begin(caller: sender, handlerID: decision.handler ?? "", timeout: Self.pickTimeout,
                                        purpose: .pick(subject, multiple: options.multiple))
        let id = pending.id
        Task { [self] in
            do throws(DBusError) {
                let provider = try await pickProvider(decision, options: options, caller: caller)
                // Closed while the sheet was up: nothing to start.
                guard replies.table.request(id) != nil else { return }
                replies.table.assign(id, handlerID: provider)
                if provider == Broker.filesCandidate.desktopID {
                    try await pickFiles(id, subject: subject, options: options, callerKey: known.appID ?? sender)
                } else {
                    try await startProvider(provider, request: pending, options: options, caller: caller)
                }
            } catch {
                logger.notice("a pick for \(caller.displayName) ended: \(error.name.rawValue): \(error.message)")
                if error.name.rawValue == Contract.errorPrefix + "Cancelled" {
                    replies.complete(id, Response(code: ReplyCode.cancelled.rawValue, results: [:]))
                } else {
                    replies.fail(id, error)
                }
            }
        }
        return MethodResult([.objectPath(ReplyService.path(id))], followUp: { [replies] in replies.publish(id) })
    }

    /// The provider decided, or picked in the sheet (checked and remembered by the core).
    private func pickProvider(_ decision: HandlerDecision, options: PickOptions, caller: Caller) async throws(DBusError) -> String {
        switch decision {
        case .open(let id?, _):
            return id
        case .open(nil, _):
            throw ContractError.noHandler("no provider was decided")
        case .ask(let question):
            let answer = try await choosers.choose(subject: question.subject, candidates: question.candidates, caller: caller, title: options.title)
            let (broker, logger) = (self.broker, self.logger)
            return try await Self.adaptAsync { () async throws(OpenFailure) in
                try await broker.settle(answer, to: question, caller: caller, warn: { logger.notice("\($0)") })
            }
        }
    }
}
