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
extension Bridge {
    /// Delivers `share` to `target` (a target id the core decided); the request is answered by
    /// the target (`Reply`, its exit) or here.
    func deliver(_ share: PendingShare, to target: String) async throws(DBusError) {
        guard let id = ShareTargetID(target) else { throw ContractError.noTarget("'\(target.prefix(200))' is not a share target") }
        switch id {
        case .copy: try await copyToClipboard(share)
        case .save: try await saveToFile(share)
        case .action(let desktopID, _), .openIn(let desktopID): try await launchShare(share, id, desktopID: desktopID)
        case .device(let deviceID): try await sendToDevice(share, deviceID: deviceID)
        }
    }

    private func launchShare(_ share: PendingShare, _ target: ShareTargetID, desktopID: String) async throws(DBusError) {
        let config = broker.policy.current
        sweepInboxes(retention: config.inboxRetention)
        let (sendingApp, limits) = (Inbox.chargedSender(appID: share.caller.appID), config.inboxLimits)
        guard let entry = registry.entry(id: desktopID) else { throw ContractError.noTarget("the share target \(target.text) is no longer installed") }
        // Each file as `OpenFile` hands a copy: the Inbox, through the document portal for a Flatpak app.
        var deliveries: [DocumentDelivery] = []
        do throws(DBusError) {
            for item in share.items {
                guard case .file(let fd) = item.payload else { continue }
                let name = item.name.isEmpty ? ShareItemSummary.defaultFileName : item.name
                deliveries.append(try await deliver(fd, name: name, to: entry, mode: .copy,
                                                    key: share.caller.appID ?? share.caller.busName, sendingApp: sendingApp, limits: limits))
            }
            let urls = try deliveries.map { delivery throws(DBusError) in
                guard let url = try? SchemeURL(Inbox.fileURL(bytes: delivery.pathBytes)) else { throw DBusError(.failed, "the document's path \(delivery.path) makes no valid URL") }
                return url
            }
            var admission = try Self.adapt { () throws(OpenFailure) in
                try broker.admit(share: target, files: urls, caller: share.caller, activationToken: share.options.activationToken, searchPath: searchPath,
                                 inDocumentPortal: deliveries.contains(where: \.inPortal))
            }
            admission.context.replyToken = share.token
            if let board = share.pasteboard {
                let (store, owner, appID) = (pasteboards.store, share.pasteboardCaller, DesktopID.busName(desktopID))
                try await pasteboards.blocking { () throws(PasteboardError) in try store.grantHandler(board.id, appID: appID, caller: owner) }
                admission.context.sharePasteboard = board.name
                admission.context.pasteboardPath = PasteboardService.path(board.id).rawValue
            }
            switch admission.plan.action {
            case .spawn:
                _ = try Self.adapt { () throws(OpenFailure) in
                    try starter.spawn(admission, purpose: .share, request: share.request, pasteboard: share.pasteboard?.id, watcher: replies)
                }
                if target.isDoneWhenStarted { replies.answer(share.request, code: .success) }
            case .activate(let busName, let objectPath):
                try await activateShare(target, busName: busName, objectPath: objectPath, urls: urls, admission: admission, share: share)
            }
            broker.usedActivationTokens.record(admission.context.activationToken)
            logger.info("shared \(share.items.count) item(s) with \(target.text) for \(share.caller.displayName)")
        } catch {
            for delivery in deliveries { delivery.removeCopy() }  // nothing was started with them
            throw error
        }
    }

    /// `ActivateAction(action, [], platform_data)` (or `Open(uris, platform_data)` for "Open
    /// in"); the share is done when the call returns (unless the target replied inside it).
    private func activateShare(_ target: ShareTargetID, busName: String, objectPath: String, urls: [SchemeURL], admission: Admission,
                               share: PendingShare) async throws(DBusError) {
        let app = try Self.application(connection, admission.plan.entry, busName: busName, objectPath: objectPath)
        await starter.activating(admission, purpose: .share, busName: busName, request: share.request, pasteboard: share.pasteboard?.id,
                                 watcher: replies, bus: BusActivation(connection: connection))
        var platform = admission.context.platformData.mapValues { DBusValue.string($0) }
        platform["uris"] = .strings(urls.map(\.string))
        do {
            switch target.activation {
            case .activateAction(let action): try await app.activateAction(action, platformData: platform)
            case .open: try await app.open(urls.map(\.string), platformData: platform)
            }
        } catch {
            throw ContractError.launchFailed("\(admission.plan.entry.name ?? admission.plan.entry.id) did not take the share over D-Bus: \(error.name.rawValue): \(error.message)")
        }
        replies.answer(share.request, code: .success)
    }
}
