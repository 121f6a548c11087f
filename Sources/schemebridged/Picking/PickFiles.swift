import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The sheet's "Files…": a file chooser instead of a provider — the desktop's portal
/// (`FileChooser.OpenFile`, `PickPortal.swift`) when one runs, else the core's ``ChosenFiles``
/// (`zenity --file-selection`); the chosen files are checked and copied as a provider's answer.
extension Picking {
    func pickFiles(_ id: UInt64, subject: PickSubject, options: PickOptions, callerKey: String) async throws {
        let timeout = Duration.seconds(broker.policy.current.chooser.timeout)
        var chosen = try await portalFiles(subject: subject, options: options, timeout: timeout)
        if chosen == nil { chosen = try await ChosenFiles.ask(title: options.title, multiple: options.multiple, environment: environment, timeout: timeout) }
        let paths = chosen ?? []
        let fds = try ChosenFiles.open(paths).map { UnixFD(owning: $0) }
        let documents = try await PickAnswer.take(fds.map(\.rawValue), names: paths, types: [], subject: subject, multiple: options.multiple,
                                                  database: self.documents.types, descriptors: descriptors, key: callerKey, keep: fds)
        respond(id, documents, provider: Broker.filesCandidate.desktopID, activationToken: nil)
    }
}
