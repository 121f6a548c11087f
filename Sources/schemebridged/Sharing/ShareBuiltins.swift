import DBus
import Glibc
import LinuxSystem
import SchemeBridgeContract
import SchemeBridgeCore

/// The built-in activities, with the tools the core's ``BuiltinTools`` names: "Copy" (the
/// clipboard tool, the data on its stdin, never a shell) and "Save to…" (the save dialog, then
/// the bytes written to the file chosen).
/// "Open in <app>" is a launch (`ShareDelivery.swift`).
extension Sharing {
    /// What the session offers for the built-in activities now (the core's ``BuiltinTools``).
    func shareTools() -> ShareTools {
        BuiltinTools.available(environment: environment, devices: devices.sender.shareTargets)
    }

    /// "Copy": the one item onto the clipboard; done when the tool has taken it (exit 0).
    func copyToClipboard(_ share: PendingShare) async throws {
        guard let item = share.items.first else { throw ContractError.noTarget("nothing to copy") }
        guard let argv = BuiltinTools.clipboard(type: item.summary.readType, environment: environment) else { throw ContractError.noTarget("no clipboard tool (wl-copy or xclip) for this session") }
        let source = try source(of: 0, in: share)
        defer { close(source) }
        let status: Int32 = await withCheckedContinuation { continuation in
            do {
                _ = try tools.spawn(argv: argv, environment: environment, stdin: source, onExit: { continuation.resume(returning: $0) })
            } catch {
                continuation.resume(returning: 127)
            }
        }
        guard status == 0 else { throw ContractError.launchFailed("\(argv[0]) could not take the data (exit status \(status))") }
        replies.answer(share.request, code: .success)
    }

    /// "Save to…": asks where, then writes the one item there (results: `path`).
    func saveToFile(_ share: PendingShare) async throws {
        guard let item = share.items.first else { throw ContractError.noTarget("nothing to save") }
        guard let argv = BuiltinTools.saveDialog(name: item.name, title: share.options.title, environment: environment) else { throw ContractError.noTarget("no file chooser (zenity) for this session") }
        var env = environment
        if let token = share.options.activationToken { (env["XDG_ACTIVATION_TOKEN"], env["DESKTOP_STARTUP_ID"]) = (token, token) }
        let timeout = Duration.seconds(broker.policy.current.chooser.timeout)
        guard case .finished(0, let output) = await ChooserProcess.run(argv: argv, environment: env, input: [], timeout: timeout),
              let path = BuiltinTools.savePath(fromDialogOutput: output) else {
            throw ContractError.cancelled("nothing was saved")
        }
        let source = try source(of: 0, in: share)
        try await descriptors.run(for: share.caller.appID ?? share.caller.busName) { () throws in
            defer { close(source) }
            try SavedItem.write(from: source, to: path)
        }
        replies.answer(share.request, code: .success, results: ["path": .string(path)])
    }

    /// A new read-only descriptor (offset 0) of item `index`: the file, or its pasteboard data.
    private func source(of index: Int, in share: PendingShare) throws -> Int32 {
        let item = share.items[index]
        if case .file(let fd) = item.payload {
            let copy = Glibc.open("/proc/self/fd/\(fd.rawValue)", O_RDONLY | O_CLOEXEC)
            guard copy >= 0 else { throw DBusError(.failed, "cannot read the shared file: \(String(cString: strerror(errno)))") }
            return copy
        }
        guard let board = share.pasteboard else { throw DBusError(.failed, "the share's data is gone") }
        let slot = ShareItemSummary.pasteboardSlot(of: index, in: share.items.map(\.summary))
        let (store, owner, type) = (pasteboards.store, share.pasteboardCaller, item.summary.readType)
        return try store.data(board.id, item: slot, type: type, caller: owner).openForReading().take()
    }
}
