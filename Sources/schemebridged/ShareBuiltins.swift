import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// The built-in activities: "Copy" (the session's clipboard tool, `wl-copy --type TYPE` under
/// Wayland, `xclip -selection clipboard -t TYPE` under X11, the data on its stdin, never a
/// shell) and "Save to…" (zenity's save dialog, then the bytes written to the file chosen).
/// "Open in <app>" is a launch (`ShareDelivery.swift`).
extension Bridge {
    /// What the session offers for the built-in activities now.
    func shareTools() -> ShareTools {
        ShareTools(copy: clipboardCommand(type: "text/plain") != nil, save: saveDialog(name: "", title: nil) != nil,
                   devices: devices.sender.shareTargets)
    }

    /// The clipboard tool's argv for `type`; nil without a display or the tool.
    private func clipboardCommand(type: String) -> [String]? {
        let path = ProgramLookup.searchPath(environment: childEnvironment)
        if !(childEnvironment["WAYLAND_DISPLAY"] ?? "").isEmpty, let tool = ProgramLookup.find("wl-copy", searchPath: path) {
            return [tool, "--type", type]
        }
        if !(childEnvironment["DISPLAY"] ?? "").isEmpty, let tool = ProgramLookup.find("xclip", searchPath: path) {
            return [tool, "-selection", "clipboard", "-t", type]
        }
        return nil
    }

    /// zenity's save dialog's argv; nil without a display or zenity.
    private func saveDialog(name: String, title: String?) -> [String]? {
        let display = !(childEnvironment["DISPLAY"] ?? "").isEmpty || !(childEnvironment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard display, let zenity = ProgramLookup.find("zenity", searchPath: ProgramLookup.searchPath(environment: childEnvironment)) else { return nil }
        return [zenity, "--file-selection", "--save", "--confirm-overwrite", "--title=" + (title ?? "Save to…")] + (name.isEmpty ? [] : ["--filename=" + name])
    }

    /// "Copy": the one item onto the clipboard; done when the tool has taken it (exit 0).
    func copyToClipboard(_ share: PendingShare) async throws(DBusError) {
        guard let item = share.items.first else { throw ContractError.noTarget("nothing to copy") }
        let type = item.summary.kind == .url ? ContentTypeName.plainText : item.summary.type
        guard let argv = clipboardCommand(type: type) else { throw ContractError.noTarget("no clipboard tool (wl-copy or xclip) for this session") }
        let source = try source(of: 0, in: share)
        defer { close(source) }
        let status: Int32 = await withCheckedContinuation { continuation in
            do {
                _ = try launcher.spawn(argv: argv, environment: childEnvironment, stdin: source, onExit: { continuation.resume(returning: $0) })
            } catch {
                continuation.resume(returning: 127)
            }
        }
        guard status == 0 else { throw ContractError.launchFailed("\(argv[0]) could not take the data (exit status \(status))") }
        replies.answer(share.request, code: .success)
    }

    /// "Save to…": asks where, then writes the one item there (results: `path`).
    func saveToFile(_ share: PendingShare) async throws(DBusError) {
        guard let item = share.items.first else { throw ContractError.noTarget("nothing to save") }
        guard let argv = saveDialog(name: item.name, title: share.options.title) else { throw ContractError.noTarget("no file chooser (zenity) for this session") }
        var env = childEnvironment
        if let token = share.options.activationToken { (env["XDG_ACTIVATION_TOKEN"], env["DESKTOP_STARTUP_ID"]) = (token, token) }
        let timeout = Duration.seconds(broker.policy.current.chooser.timeout)
        guard case .finished(0, let output) = await ChooserProcess.run(argv: argv, environment: env, input: [], timeout: timeout),
              case let path = String(decoding: output.split(separator: 0x0A).first ?? [], as: UTF8.self), path.hasPrefix("/") else {
            throw ContractError.cancelled("nothing was saved")
        }
        let source = try source(of: 0, in: share)
        try await descriptors.run(for: share.caller.appID ?? share.caller.busName) { () throws(DBusError) in
            defer { close(source) }
            let out = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard out >= 0 else { throw DBusError(.failed, "cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { close(out) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw DBusError(.failed, "cannot read the shared item: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                var done = 0
                while done < n {
                    let w = buffer.withUnsafeBytes { write(out, $0.baseAddress! + done, n - done) }
                    if w < 0 && errno == EINTR { continue }
                    guard w > 0 else { throw DBusError(.failed, "cannot write \(path): \(String(cString: strerror(errno)))") }
                    done += w
                }
            }
        }
        replies.answer(share.request, code: .success, results: ["path": .string(path)])
    }

    /// A new read-only descriptor (offset 0) of item `index`: the file, or its pasteboard data.
    private func source(of index: Int, in share: PendingShare) throws(DBusError) -> Int32 {
        let item = share.items[index]
        if case .file(let fd) = item.payload {
            let copy = Glibc.open("/proc/self/fd/\(fd.rawValue)", O_RDONLY | O_CLOEXEC)
            guard copy >= 0 else { throw DBusError(.failed, "cannot read the shared file: \(String(cString: strerror(errno)))") }
            return copy
        }
        guard let board = share.pasteboard else { throw DBusError(.failed, "the share's data is gone") }
        let slot = share.items[..<index].filter { $0.pasteboardValues != nil }.count
        let (store, owner) = (pasteboards.store, share.pasteboardCaller)
        let type = item.summary.kind == .url ? ContentTypeName.plainText : item.summary.type
        return try PasteboardService.adapt { () throws(PasteboardError) in try store.data(board.id, item: slot, type: type, caller: owner).openForReading().take() }
    }
}
