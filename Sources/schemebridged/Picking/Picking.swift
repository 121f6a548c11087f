import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// `PickDocument`: the caller gets a request object at once; the decision (the core's one
/// pipeline: `provider` > remembered > route > the sheet) is made when the call comes in, the
/// sheet is shown and the provider started after it returned, and the outcome is the request's
/// `Response` (sent to the caller only, once). A pick is a request of the reply machinery
/// (``ReplyService``): the provider answers with its token (`ProvideDocuments`, or `Reply` with
/// 1 or 2), only the launched provider may, and its exit without an answer is code 2.
final class Picking: Sendable {
    let broker: Broker
    let callers: Callers
    let chooser: ChooserService
    let replies: ReplyService
    let launcher: Launcher
    let documents: Documents
    let descriptors: DescriptorWork
    let connection: Connection
    /// The environment the file chooser runs with (the handlers' base environment).
    let environment: [String: String]
    let logger: Logger

    init(broker: Broker, callers: Callers, chooser: ChooserService, replies: ReplyService, launcher: Launcher, documents: Documents,
         descriptors: DescriptorWork, logger: Logger) {
        (self.broker, self.callers, self.chooser, self.replies, self.launcher) = (broker, callers, chooser, replies, launcher)
        (self.documents, self.descriptors, self.logger) = (documents, descriptors, logger)
        (self.connection, self.environment) = (launcher.connection, launcher.starter.baseEnvironment)
    }

    /// How long a pick waits for its provider (the user browses in the provider's own UI).
    static let pickTimeout = Duration.seconds(3600)

    /// `PickDocument(as types, a{sv} options) → o`.
    func pick(types: [String], options rawOptions: [String: DBusValue], sender: String) async throws -> MethodResult {
        let options = try PickOptions(checking: rawOptions)
        let subject = try PickSubject(types)
        let caller = await callers.caller(sender)
        let decision = try broker.decidePick(subject, provider: options.provider, caller: caller)
        let pending = try replies.begin(caller: sender, handlerID: decision.handler?.text ?? "", timeout: Self.pickTimeout,
                                        purpose: .pick(subject, multiple: options.multiple))
        let id = pending.id
        Task { [self, broker, chooser, logger] in
            do {
                let context = ChooserContext(activationToken: options.activationToken, title: options.title, parentWindow: options.parentWindow)
                let settled = try await broker.settle(decision, for: .pick, caller: caller, chooser: chooser, context: context,
                                                      warn: { logger.notice("\($0)") })
                guard let provider = settled.id else { throw ContractError.noHandler("no provider was decided") }
                // Closed while the sheet was up: nothing to start.
                guard replies.table.request(id) != nil else { return }
                replies.table.assign(id, handlerID: provider.text)
                if provider == .files {
                    try await pickFiles(id, subject: subject, options: options, callerKey: caller.appID ?? sender)
                } else {
                    try await startProvider(provider.desktopID, request: pending, options: options, caller: caller)
                }
            } catch {
                let error = DBusError.from(error)
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

    /// Starts provider `id` with the request's token (the core's ``Broker/providerPlan(_:)``): spawned
    /// (`SCHEMEBRIDGE_PICK_TOKEN` in its environment; its exit without an answer fails the request),
    /// or `org.freedesktop.Application.Activate(platform_data)` with `pick-token` (its leaving the
    /// bus fails the request). Who may answer is recorded as for replies.
    func startProvider(_ id: DesktopID, request: RequestTable.Request, options: PickOptions, caller: Caller) async throws {
        let plan = try broker.providerPlan(id)
        var context = LaunchContext(source: caller.appID, activationToken: options.activationToken, startupID: options.activationToken)
        context.pickToken = request.token
        logger.info("asking \(id) for documents for \(caller.displayName)")
        _ = try await launcher.start(plan, context: context, request: request.id)
    }
}
