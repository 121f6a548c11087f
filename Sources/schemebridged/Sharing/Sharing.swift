import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// A share accepted by `Share`, carried out as the reply naming its request goes out.
struct PendingShare: Sendable {
    let request: UInt64
    let token: String
    let items: [SharedItem]
    /// The pasteboard holding the data and URL items (owned by the caller), if any.
    let pasteboard: Pasteboard?
    let pasteboardCaller: Caller
    let caller: Caller
    var options: ShareOptions
    let decision: HandlerDecision
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
    /// The environment the built-in tools run with (the handlers' base environment).
    let environment: [String: String]
    let logger: Logger
    /// Starts the built-in tools ("Copy").
    let tools = ProcessLauncher()

    init(broker: Broker, callers: Callers, chooser: ChooserService, replies: ReplyService, pasteboards: PasteboardService,
         deliverer: DocumentDeliverer, devices: DeviceService, launcher: Launcher, logger: Logger) {
        (self.broker, self.callers, self.chooser, self.replies, self.pasteboards) = (broker, callers, chooser, replies, pasteboards)
        (self.deliverer, self.devices, self.launcher, self.logger) = (deliverer, devices, launcher, logger)
        self.environment = launcher.starter.baseEnvironment
    }

    var documents: Documents { deliverer.documents }
    var descriptors: DescriptorWork { deliverer.descriptors }
    var registry: Registry { broker.registry }

    /// `Share(aa{sv}, a{sv}) → o`.
    func share(_ itemsValue: DBusValue, options raw: [String: DBusValue], sender: String) async throws -> MethodResult {
        let options = try ShareOptions(checking: raw)
        let caller = await callers.caller(sender)
        let key = caller.appID ?? sender
        let (documents, devices, inbox) = (self.documents, self.devices, self.documents.inbox.root)
        // A share naming a device as its target goes straight there: what its send decides from is
        // found in the same look as the type (any other share finds it if and when a device is picked).
        let toDevice: Bool
        if case .device? = options.target.flatMap(ShareTargetID.init) { toDevice = true } else { toDevice = false }
        var items: [SharedItem] = []
        for (i, entries) in try ShareIntake.decode(itemsValue) {
            items.append(try await ShareIntake.item(i, entries) { fd, name throws in
                do {
                    return try await descriptors.run(for: key) { () throws in
                        let found = try fd.withFileDescriptor { d in try documents.inspect(d, contentType: nil) }
                        return InspectedFile(name: found.name, type: found.type,
                                             facts: toDevice ? devices.facts(ofFile: fd.rawValue, name: name ?? "", caller: caller, inbox: inbox) : nil)
                    }
                } catch {
                    let error = DBusError.from(error)
                    throw DBusError(error.name, "item \(i): \(error.message)")
                }
            })
        }
        let subject = ShareSubject(items: items.map(\.summary), tools: shareTools())
        let decision = try broker.decide(.share(subject), requested: options.target, ask: options.ask, caller: caller)
        let pasteboardCaller = Caller(busName: sender, appID: caller.appID, lineage: caller.lineage)
        let board = try await sharePasteboard(items, caller: pasteboardCaller)
        let timeout = Duration.seconds(Int64(options.timeout ?? OpenOptions.defaultTimeout))
        let pending: RequestTable.Request
        do {
            pending = try replies.begin(caller: sender, handlerID: "the share's target", timeout: timeout)
        } catch {
            discard(board, caller: pasteboardCaller)
            throw error
        }
        replies.sharing(pending.id, target: "")
        let share = PendingShare(request: pending.id, token: pending.token, items: items, pasteboard: board, pasteboardCaller: pasteboardCaller,
                                 caller: caller, options: options, decision: decision)
        logger.info("\(caller.displayName) shares \(items.count) item(s) of type(s) \(subject.types.prefix(5).joined(separator: ", "))")
        // Carried out at once, on this thread until it first waits (for the sheet, a launch, an
        // engine): its Response is held until the reply naming the request is out.
        Task.immediate { await carryOut(share) }
        return MethodResult([.objectPath(ReplyService.path(pending.id))], followUp: { [self] in
            replies.publish(pending.id)
        })
    }

    /// `ShareTargets(as) → a(ssss)`: the targets that accept items of every type in `types`
    /// (taken as files: "Open in" is offered), for the caller; a sandboxed caller is told of no
    /// app or device (``SandboxedCallerRule/visibleShareTargets(_:to:)``).
    func shareTargets(types: [String], sender: String) async throws -> [ShareTarget] {
        guard types.count <= 256 else { throw DBusError(.invalidArgs, "at most 256 types at once") }
        let summaries = try types.map { t throws in
            ShareItemSummary(kind: .file, type: try ContentType(t).name)
        }
        let caller = await callers.caller(sender)
        return SandboxedCallerRule.visibleShareTargets(broker.shareTargets(for: summaries, caller: caller, tools: shareTools()), to: caller)
    }

    /// Decides (asking when the core says so), then delivers; every outcome is the request's
    /// `Response`.
    private func carryOut(_ share: PendingShare) async {
        do {
            let types = ShareSubject(items: share.items.map(\.summary), tools: ShareTools(copy: false, save: false)).types
            let context = ChooserContext(share: ShareQuestion(types: types, count: share.items.count, activationToken: share.options.activationToken,
                                                              previews: share.items.prefix(ShareItemPreview.limit).map(\.preview)),
                                         parentWindow: share.options.parentWindow)
            let (broker, chooser, logger) = (self.broker, self.chooser, self.logger)
            let settled = try await broker.settle(share.decision, for: .share, caller: share.caller, chooser: chooser, context: context, warn: { logger.notice("\($0)") })
            guard let target = settled.id else { throw ContractError.noTarget("nothing accepts the items") }
            replies.sharing(share.request, target: target)
            var share = share  // the target starts with the sheet's fresh token, never the caller's spent one (the core's rule)
            share.options.activationToken = settled.launchToken(callerToken: share.options.activationToken)
            try await deliver(share, to: target)
        } catch {
            let error = DBusError.from(error)
            logger.notice("share of \(share.caller.displayName) not delivered: \(error.name.rawValue): \(error.message)")
            discard(share.pasteboard, caller: share.pasteboardCaller)
            if ContractError.cancelled ~= error {
                replies.answer(share.request, code: .cancelled)
            } else {
                replies.answer(share.request, failure: error)
            }
        }
    }

    /// A pasteboard owned by the caller with the data and URL items, one item each, in order;
    /// nil when the share has none. The caller's pasteboard quota applies (`QuotaExceeded`); at its
    /// count, the caller's oldest pasteboard made for an earlier share makes room.
    private func sharePasteboard(_ items: [SharedItem], caller: Caller) async throws -> Pasteboard? {
        let values = items.compactMap(\.pasteboardValues)
        guard !values.isEmpty else { return nil }
        let store = pasteboards.store
        let board = try await pasteboards.blocking { () throws(PasteboardError) in
            try store.create(name: "", persistent: false, expiresIn: nil, caller: caller, forShare: true)
        }
        do {
            var write = try store.beginWrite(board.id, values, caller: caller)
            if write.needsCopies {
                write = try await descriptors.run(for: caller.appID ?? caller.busName) { [write] () throws in
                    var copied = write
                    try copied.copy()
                    return copied
                }
            }
            let ready = write.ready
            _ = try store.setItems(board.id, ready, caller: caller)
            withExtendedLifetime(items) {}
        } catch {
            discard(board, caller: caller)
            throw error
        }
        pasteboards.exportObject(board.id)
        return board
    }

    /// Deletes a share's pasteboard that will not be delivered.
    func discard(_ board: Pasteboard?, caller: Caller) {
        guard let board else { return }
        let store = pasteboards.store
        Task { _ = try? await pasteboards.blocking { () throws(PasteboardError) in try store.delete(board.id, caller: caller) } }
    }
}
