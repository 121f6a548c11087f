import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// A share accepted by `Share`, carried out as the reply naming its request goes out.
struct PendingShare: Sendable {
    let request: UInt64
    let token: String
    let items: [SharedItem<UnixFD>]
    /// The pasteboard holding the data and URL items (owned by the caller), if any.
    let pasteboard: Pasteboard?
    let pasteboardCaller: Caller
    let caller: Caller
    var options: ShareOptions
    let decision: HandlerDecision
    /// A device share's sends, handed to the engine as the share was made (``DeviceShareSender/startNow(_:decided:outbox:)``).
    let sending: DeviceShareSender<KDEConnectJobs>.Started?
}

/// `Share1.Share` on the one pipeline: decode and check the items (files inspected on the
/// descriptor threads, data and URLs put on a pasteboard the caller owns), decide (`NoTarget`
/// before any request exists), return the request, then ask (the sheet), grant, launch and
/// answer with the request's `Response`. Delivery: `ShareDelivery.swift`; built-ins:
/// `ShareBuiltins.swift`.
final class Sharing: Sendable {
    let broker: Broker
    let callers: Callers
    let chooser: ChooserService
    let replies: ReplyService
    let pasteboards: PasteboardService
    let deliverer: DocumentDeliverer
    let devices: DeviceService
    let launcher: Launcher
    /// "Copy" and "Save to…", their tools run with the handlers' base environment.
    let builtins: BuiltinActivities
    let logger: Logger

    init(broker: Broker, callers: Callers, chooser: ChooserService, replies: ReplyService, pasteboards: PasteboardService,
         deliverer: DocumentDeliverer, devices: DeviceService, launcher: Launcher, logger: Logger) {
        (self.broker, self.callers, self.chooser, self.replies, self.pasteboards) = (broker, callers, chooser, replies, pasteboards)
        (self.deliverer, self.devices, self.launcher, self.logger) = (deliverer, devices, launcher, logger)
        self.builtins = BuiltinActivities(environment: launcher.starter.baseEnvironment)
    }

    var documents: Documents { deliverer.documents }
    var descriptors: DescriptorWork { deliverer.descriptors }
    var registry: Registry { broker.registry }

    /// `Share(aa{sv}, a{sv}) → o`, started on the loop thread (`.onLoop`). A share naming a device
    /// stays there between its waits (the file's look, with what its send decides from, on a
    /// descriptor thread; the engine's call): its steps are short, never block (its task, the `.onLoop`
    /// handler's, prefers the loop). Any other moves to the pool at once (it may spawn a target or a tool).
    func share(_ items: ShareIntake.Items, options raw: [String: DBusValue], sender: String) async throws -> MethodResult {
        let options = try ShareOptions(checking: raw), target = options.target.flatMap(ShareTargetID.init)
        if target?.isDevice == true { return try await share(items, options, sender, on: replies.connection.loopExecutor, target: target) }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { () async throws -> MethodResult in
            try await share(items, options, sender, on: globalConcurrentExecutor, target: target)
        }
    }

    /// The share, carried out with `executor` preferred (what a device's send decides from is
    /// found in the same look as the type; no pasteboard: a device's send reads the items).
    private func share(_ itemsRead: ShareIntake.Items, _ options: ShareOptions, _ sender: String, on executor: any TaskExecutor, target: ShareTargetID?) async throws -> MethodResult {
        let (caller, toDevice) = (await callers.caller(sender), target?.isDevice == true)
        let looks = toDevice ? devices.outbox.looks(caller: caller, inbox: documents.inbox.root) : nil
        try ShareItemGrammar.checkCount(itemsRead.count, maximum: ShareContract.maximumItems)  // after the options, as the contract orders its errors
        let items = try await SharedItem.intake(itemsRead, keys: ShareIntake.keys, documents: documents, runner: descriptors,
                                                key: caller.appID ?? sender, facts: looks?.facts, local: looks?.local)
        let subject = ShareSubject(items: items.map { $0.summary }, tools: shareTools(for: target))
        let decision = try broker.decide(.share(subject), requested: options.target, ask: options.ask, caller: caller)
        let pasteboardCaller = Caller(busName: sender, id: caller.id, lineage: caller.lineage)
        // Data and URLs on a pasteboard the caller owns (its descriptors held by `items` meanwhile); none for a device.
        let board = toDevice ? nil : try await pasteboards.calls.forShare(items.pasteboardValues(), caller: pasteboardCaller)
        withExtendedLifetime(items) {}
        if let board { pasteboards.exportObject(board.id) }
        let pending: RequestTable.Request
        do { pending = try replies.reserve(caller: sender, handlerID: nil) } catch { discard(board, caller: pasteboardCaller); throw error }
        let sending = toDevice ? devices.shareSender.startNow(items, decided: decision, outbox: devices.outbox) : nil  // a device's: the call leaves now
        replies.begin(pending, timeout: .seconds(Int64(options.timeout ?? OpenOptions.defaultTimeout)))
        replies.sharing(pending.id, target: nil)
        // Not waiting for the delivery, its caller is answered as the engine takes it: in the dispatch of the engine's reply.
        if !options.delivery, case .success(let s)? = sending?.sending { _ = devices.shareSender.whenTaken(s) { [replies] in replies.answer(pending.id, code: .success, results: Self.handedToEngine($0)) } }
        let share = PendingShare(request: pending.id, token: pending.token, items: items, pasteboard: board, pasteboardCaller: pasteboardCaller,
                                 caller: caller, options: options, decision: decision, sending: sending)
        // A share is logged at debug level (its failure at notice, in `carryOut`): the line is built only then.
        logger.debug("\(caller.displayName) shares \(items.count) item(s) of type(s) \(subject.types.prefix(5).joined(separator: ", "))")
        // Carried out at once, on this thread until it first waits (for the sheet, a launch, an engine): its Response is
        // held until the reply naming the request is out.
        Task.immediate(executorPreference: executor) { await carryOut(share) }
        return MethodResult([.objectPath(ReplyService.path(pending.id))], followUp: { [replies] in replies.publish(pending.id) })
    }

    /// `ShareTargets(as) → a(ssss)`: the targets that accept items of every type in `types`
    /// (taken as files: "Open in" is offered), for the caller; a sandboxed caller is told of no
    /// app or device (``SandboxedCallerRule/visibleShareTargets(_:to:)``).
    func shareTargets(types: [String], sender: String) async throws -> [ShareTarget] {
        let summaries = try ShareItemSummary.files(ofTypes: types)
        let caller = await callers.caller(sender)
        return SandboxedCallerRule.visibleShareTargets(broker.shareTargets(for: summaries, caller: caller, tools: shareTools()), to: caller)
    }

    /// Decides (asking when the core says so), then delivers; every outcome is the request's
    /// `Response`.
    private func carryOut(_ share: PendingShare) async {
        do {
            let (broker, chooser, logger) = (self.broker, self.chooser, self.logger)
            let settled = if let decided = SettledHandler(decided: share.decision) { decided } else {  // a device named, say: no generic async settle
                try await broker.settle(share.decision, for: .share, caller: share.caller, chooser: chooser,
                                        context: share.items.chooserContext(for: share.decision, activationToken: share.options.activationToken,
                                                                            parentWindow: share.options.parentWindow),
                                        warn: { logger.notice("\($0)") })
            }
            guard let target = settled.id?.text else { throw ContractError.noTarget("nothing accepts the items") }
            guard let id = ShareTargetID(target) else { throw ContractError.noTarget("'\(target.prefix(200))' is not a share target") }
            replies.sharing(share.request, target: settled.id)
            var share = share  // the target starts with the sheet's fresh token, never the caller's spent one (the core's rule)
            share.options.activationToken = settled.launchToken(callerToken: share.options.activationToken)
            try await deliver(share, to: id)
        } catch {
            let error = DBusError.from(error)
            logger.notice("share of \(share.caller.displayName) not delivered: \(error.name.rawValue): \(error.message)")
            discard(share.pasteboard, caller: share.pasteboardCaller)
            replies.end(share.request, error: error)  // a cancel is code 1, anything else names the error
        }
    }

    /// Deletes a share's pasteboard that will not be delivered.
    func discard(_ board: Pasteboard?, caller: Caller) { pasteboards.calls.discard(board, caller: caller) }
}
