import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// The sheet's "Files…": a file chooser instead of a provider — the desktop's portal
/// (`FileChooser.OpenFile`, `PickPortal.swift`) when one runs, else `zenity --file-selection`
/// (`--multiple` when asked), run like a chooser program (its own thread waits, `[Chooser]
/// Timeout=` bounds it). The chosen files are opened read-only (never following into a FIFO:
/// `O_NONBLOCK`, then the same checks and copies as a provider's answer).
extension Picking {
    func pickFiles(_ id: UInt64, subject: PickSubject, options: PickOptions, callerKey: String) async throws {
        let timeout = Duration.seconds(broker.policy.current.chooser.timeout)
        var chosen = try await portalFiles(subject: subject, options: options, timeout: timeout)
        if chosen == nil { chosen = try await zenityFiles(options: options, timeout: timeout) }
        let paths = chosen ?? []
        var fds: [UnixFD] = []
        for file in paths {
            let fd = Glibc.open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else { throw DBusError(.failed, "cannot open \(file): \(String(cString: strerror(errno)))") }
            fds.append(UnixFD(owning: fd))
        }
        let documents = try await takeDocuments(fds.map(\.rawValue), names: paths, types: [], subject: subject, multiple: options.multiple,
                                                key: callerKey, keep: fds)
        respond(id, documents, provider: Broker.filesCandidate.desktopID, activationToken: nil)
    }

    /// The paths chosen in `zenity --file-selection`.
    private func zenityFiles(options: PickOptions, timeout: Duration) async throws -> [String] {
        guard let argv = BuiltinTools.openDialog(title: options.title, multiple: options.multiple, environment: environment) else {
            throw ContractError.noChooser("no file chooser to ask with: run a desktop portal (org.freedesktop.portal.Desktop) or install zenity")
        }
        switch await ChooserProcess.run(argv: argv, environment: environment, input: [], timeout: timeout) {
        case .failedToStart(let error):
            throw ContractError.noChooser("the file chooser cannot be started: \(error.reason)")
        case .timedOut:
            throw ContractError.cancelled("the file chooser gave no answer in \(timeout.components.seconds) s and was closed")
        case .finished(let status, let output):
            let chosen = BuiltinTools.paths(fromDialogOutput: output)
            guard status == 0, !chosen.isEmpty else { throw ContractError.cancelled("no file was chosen") }
            return chosen
        }
    }
}
