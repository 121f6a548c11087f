import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// `PickDocument`: the caller gets a request object at once; the core's ``PickFlow`` decides,
/// shows the sheet after the reply and starts the provider, and the outcome is the request's
/// `Response` (sent to the caller only, once). The provider answers with its token
/// (`ProvideDocuments`: `PickDocuments.swift`, or `Reply` with 1 or 2).
final class Picking: Sendable {
    typealias Flow = PickFlow<RequestObjects, ApplicationBus, ChooserService>
    let flow: Flow
    let callers: Callers
    let documents: Documents
    let descriptors: DescriptorWork
    let connection: Connection
    /// The environment the file chooser runs with (the handlers' base environment).
    let environment: [String: String]
    let logger: Logger

    init(broker: Broker, callers: Callers, chooser: ChooserService, replies: ReplyService, launcher: Launcher, documents: Documents,
         descriptors: DescriptorWork, logger: Logger) {
        flow = PickFlow(broker: broker, replies: replies, launcher: launcher, chooser: chooser, log: { logger.log($0, $1) })
        (self.callers, self.documents, self.descriptors, self.logger) = (callers, documents, descriptors, logger)
        (self.connection, self.environment) = (launcher.port.connection, launcher.starter.baseEnvironment)
    }

    var broker: Broker { flow.broker }
    var replies: ReplyService { flow.replies }
    /// How long a pick waits for its provider.
    static var pickTimeout: Duration { Flow.timeout }

    /// `PickDocument(as types, a{sv} options) → o`.
    func pick(types: [String], options rawOptions: [String: DBusValue], sender: String) async throws -> MethodResult {
        let options = try PickOptions(checking: rawOptions)
        let pick = Flow.Pick(subject: try PickSubject(types), provider: options.provider, multiple: options.multiple,
                             context: ChooserContext(activationToken: options.activationToken, title: options.title, parentWindow: options.parentWindow))
        let caller = await callers.caller(sender)
        let (request, decision) = try flow.begin(pick, caller: caller, sender: sender)
        Task { [self, flow] in
            await flow.carryOut(request, pick, decision: decision, caller: caller) { _ in
                try await pickFiles(request.id, subject: pick.subject, options: options, callerKey: caller.appID ?? sender)
            }
        }
        return MethodResult([.objectPath(ReplyService.path(request.id))], followUp: { [replies] in replies.publish(request.id) })
    }

    /// Starts provider `id` for `request` (the core's ``PickFlow/startProvider(_:request:activationToken:caller:)``).
    func startProvider(_ id: DesktopID, request: RequestTable.Request, options: PickOptions, caller: Caller) async throws {
        try await flow.startProvider(id, request: request, activationToken: options.activationToken, caller: caller)
    }
}
