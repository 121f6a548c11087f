import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// Handing a decided share to its target: files as read-only copies in the target's Inbox (the
/// `OpenFile` document path, its quotas and checks; through the document portal, read-only, for
/// a Flatpak app), data through the share's pasteboard granted
/// to the target's app id (and its process or activated connection), the reply token; then the
/// action's `Exec` (the "Open in" app's own), or `ActivateAction` (`Open` for "Open in") for a
/// `DBusActivatable` app. Nothing about a share is broadcast.
extension Sharing {
    /// Delivers `share` to `id` (the target the core decided); the request is answered by the
    /// target (`Reply`, its exit) or here.
    func deliver(_ share: PendingShare, to id: ShareTargetID) async throws {
        switch id {
        case .copy: try await copyToClipboard(share)
        case .save: try await saveToFile(share)
        case .action(let desktopID, _), .openIn(let desktopID): try await launchShare(share, id, desktopID: desktopID)
        case .device(let deviceID): try await sendToDevice(share, deviceID: deviceID)
        }
    }

    private func launchShare(_ share: PendingShare, _ target: ShareTargetID, desktopID: DesktopID) async throws {
        let config = broker.policy.current
        deliverer.sweepInboxes(retention: config.inboxRetention)
        let (sendingApp, limits) = (InboxSender(share.caller.id), config.inboxLimits)
        guard let entry = registry.entry(id: desktopID) else { throw ContractError.noTarget("the share target \(target.text) is no longer installed") }
        // Each file as `OpenFile` hands a copy: the Inbox, through the document portal for a Flatpak app.
        var deliveries: [DocumentDeliverer.DocumentDelivery] = []
        do {
            for item in share.items {
                guard case .file(let fd) = item.payload else { continue }
                let name = item.name.isEmpty ? ShareItemSummary.defaultFileName : item.name
                deliveries.append(try await deliverer.deliver(fd, name: name, to: entry, mode: .copy,
                                                              key: share.caller.appID ?? share.caller.busName, sendingApp: sendingApp, limits: limits))
            }
            let urls = try deliveries.map { d throws(ServiceFailure) in try SchemeURL.file(d.pathBytes, "the document's path") }
            var admission = try broker.admit(share: target, files: urls, caller: share.caller, activationToken: share.options.activationToken,
                                             searchPath: broker.registry.directories.executableSearchPath, inDocumentPortal: deliveries.contains(where: \.inPortal))
            admission.context.replyToken = share.token
            if let board = share.pasteboard {
                try await pasteboards.calls.grantHandler(board.id, handler: desktopID, caller: share.pasteboardCaller)
                admission.context.sharePasteboard = board.name
                admission.context.pasteboardPath = PasteboardService.path(board.id).rawValue
            }
            let started = try await launcher.start(admission.plan, context: admission.context, admission: admission, request: share.request,
                                                   pasteboard: share.pasteboard?.id)
            // An activated target has the share once its call returned (unless it replied inside it).
            if started.kind == .dbusActivation || target.isDoneWhenStarted { replies.answer(share.request, code: .success) }
            logger.debug("shared \(share.items.count) item(s) with \(target.text) for \(share.caller.displayName)")
        } catch {
            for delivery in deliveries { delivery.removeCopy() }  // nothing was started with them
            throw error
        }
    }
}
