import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The built-in activities: the core's ``BuiltinActivities`` ("Copy", "Save to…") over the
/// share's items. "Open in <app>" is a launch (`ShareDelivery.swift`).
extension Sharing {
    /// What the session offers for a share to `target` now (the core's ``BuiltinActivities``).
    func shareTools(for target: ShareTargetID? = nil) -> ShareTools { builtins.available(devices: devices.sender.shareTargets, target: target) }

    /// "Copy": the one item onto the clipboard; done when the tool has taken it (exit 0).
    func copyToClipboard(_ share: PendingShare) async throws {
        guard let item = share.items.first else { throw ContractError.noTarget("nothing to copy") }
        try await builtins.copy(type: item.summary.readType) { try source(of: 0, in: share) }
        replies.answer(share.request, code: .success)
    }

    /// "Save to…": asks where, then writes the one item there (results: `path`).
    func saveToFile(_ share: PendingShare) async throws {
        guard let item = share.items.first else { throw ContractError.noTarget("nothing to save") }
        let path = try await builtins.save(name: item.name, title: share.options.title, activationToken: share.options.activationToken,
                                           timeout: .seconds(broker.policy.current.chooser.timeout), runner: descriptors,
                                           key: share.caller.appID ?? share.caller.busName) { try source(of: 0, in: share) }
        replies.answer(share.request, code: .success, results: ["path": .string(path)])
    }

    private func source(of index: Int, in share: PendingShare) throws -> Int32 {
        try share.items.source(of: index, board: share.pasteboard?.id, store: pasteboards.store, owner: share.pasteboardCaller)
    }
}
