import Glibc
import LinuxSystem

/// The built-in activities carried out, with the tools ``BuiltinTools`` names: "Copy" (the
/// clipboard tool, the data on its stdin, never a shell) and "Save to…" (the save dialog, then
/// the bytes written to the file chosen, ``SavedItem``). "Open in <app>" is a launch.
public struct BuiltinActivities: Sendable {
    /// The environment the tools run with (the handlers' base environment).
    public let environment: [String: String]
    /// Starts the clipboard tool.
    let tools = ProcessLauncher()

    /// The activities, their tools run with `environment`.
    public init(environment: [String: String]) { self.environment = environment }

    /// What the session offers now, with `devices` (``BuiltinTools/available(environment:devices:)``);
    /// for a share naming a device as its `target`, the devices alone (no tool is looked for).
    public func available(devices: [NearbyDevice], target: ShareTargetID? = nil) -> ShareTools {
        if case .device? = target { return ShareTools(copy: false, save: false, devices: devices) }
        return BuiltinTools.available(environment: environment, devices: devices)
    }

    /// "Copy": what `source` opens (a new descriptor, closed here) onto the clipboard as `type`;
    /// done when the tool has taken it (exit 0). `NoTarget` without a clipboard tool,
    /// `LaunchFailed` when it did not take the data.
    public func copy(type: String, source: () throws -> Int32) async throws {
        guard let argv = BuiltinTools.clipboard(type: type, environment: environment) else {
            throw ServiceFailure(.noTarget, "no clipboard tool (wl-copy or xclip) for this session")
        }
        let input = FileDescriptor(owning: try source())
        let (tools, environment, stdin) = (self.tools, self.environment, input.rawValue)
        let status: Int32 = await withCheckedContinuation { continuation in
            do {
                _ = try tools.spawn(argv: argv, environment: environment, stdin: stdin, onExit: { continuation.resume(returning: $0) })
            } catch {
                continuation.resume(returning: 127)
            }
        }
        _ = consume input  // the tool has taken it (or never started)
        guard status == 0 else { throw ServiceFailure(.launchFailed, "\(argv[0]) could not take the data (exit status \(status))") }
    }

    /// "Save to…": asks where (the save dialog suggesting `name`, titled `title`, within
    /// `timeout`), then writes what `source` opens (a new descriptor, closed here) there on a
    /// descriptor thread of `runner` for `key`; the path. `NoTarget` without a dialog,
    /// `Cancelled` when nothing was chosen.
    public func save(name: String, title: String?, activationToken: String?, timeout: Duration, runner: any DescriptorRunner, key: String,
                     source: () throws -> Int32) async throws -> String {
        guard let argv = BuiltinTools.saveDialog(name: name, title: title, environment: environment) else {
            throw ServiceFailure(.noTarget, "no file chooser (zenity) for this session")
        }
        var env = environment
        if let token = activationToken { (env["XDG_ACTIVATION_TOKEN"], env["DESKTOP_STARTUP_ID"]) = (token, token) }
        guard case .finished(0, let output) = await ChooserProcess.run(argv: argv, environment: env, input: [], timeout: timeout),
              let path = BuiltinTools.savePath(fromDialogOutput: output) else {
            throw ServiceFailure(.cancelled, "nothing was saved")
        }
        let input = try source()
        try await runner.run(for: key) { () throws in
            let owned = FileDescriptor(owning: input)
            try SavedItem.write(from: owned.rawValue, to: path)
        }
        return path
    }
}

extension Array {
    /// A new read-only descriptor (offset 0) of item `index`: the file itself, or the item's data
    /// on the share's pasteboard `board` in `store` (owned by `owner`), read as its ``ShareItemSummary/readType``.
    public func source<Held>(of index: Int, board: String?, store: PasteboardStore, owner: Caller) throws(ServiceFailure) -> Int32
        where Element == SharedItem<Held> {
        let item = self[index]
        if case .file(let fd) = item.payload {
            do { return try FileDescriptor.lending(fd.rawValue) { d throws(Errno) in try d.reopenForReading().take() } } catch {
                throw ServiceFailure(.failed, "cannot read the shared file: \(error)")
            }
        }
        guard let board else { throw ServiceFailure(.failed, "the share's data is gone") }
        let slot = ShareItemSummary.pasteboardSlot(of: index, in: map { $0.summary })
        return try store.data(board, item: slot, type: item.summary.readType, caller: owner).openForReading().take()
    }
}
