import DBus
import LinuxSystem
import SchemeBridgeContract
import SchemeBridgeCore

/// The documents of a pick: what the provider (or the file chooser) hands over is checked by
/// the core's rules (``PickAnswer``: how many, regular files only, of a type the caller asked
/// for) and copied into sealed memfds on the descriptor threads, so nothing the provider does
/// afterwards changes what the caller reads; the caller gets read-only descriptors of the copies.
extension Picking {
    /// `ProvideDocuments(s token, ah fds, a{sv} info)` from `sender`.
    func provideDocuments(token: String, fds: [UnixFD], info: [String: DBusValue], sender: String) async throws {
        let (names, claimed) = (try info.contractStrings(PickContract.InfoKey.names), try info.contractStrings(PickContract.InfoKey.types))
        let activation = try info.contractString(PickContract.InfoKey.activationToken)
        let (request, documents) = try await flow.provided(fds, names: names, types: claimed, token: token, sender: sender,
                                                           database: self.documents.types, descriptors: descriptors)
        respond(request.id, documents, provider: request.handlerLabel, activationToken: activation)
    }

    /// Ends pick `id` with `documents`: read-only descriptors of the copies, names, types.
    func respond(_ id: UInt64, _ documents: [PickedDocument], provider: String, activationToken: String?) {
        guard let fds = try? documents.map({ d throws(PasteboardError) in UnixFD(owning: try d.data.openForReading().take()) }) else {
            return replies.fail(id, DBusError(.failed, "a copy could not be opened for reading"))
        }
        replies.complete(id, Response(code: ReplyCode.success.rawValue, results: PickContract.results(
            fds: fds, names: documents.map(\.name), types: documents.map(\.type), provider: provider, activationToken: activationToken)))
    }
}
