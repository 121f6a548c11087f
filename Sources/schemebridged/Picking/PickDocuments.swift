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
        let request = try await replies.pending(token: token, sender: sender)
        guard case .pick(let subject, let multiple) = request.purpose else {
            throw DBusError(.invalidArgs, "this token is for a reply, not a pick: answer it with Reply")
        }
        let names = try Self.strings(info, PickContract.InfoKey.names)
        let claimed = try Self.strings(info, PickContract.InfoKey.types)
        let activation = try info.contractString(PickContract.InfoKey.activationToken)
        let documents = try await PickAnswer.take(fds.map(\.rawValue), names: names, types: claimed, subject: subject, multiple: multiple,
                                                  database: self.documents.types, descriptors: descriptors, key: sender, keep: fds)
        respond(request.id, documents, provider: request.handlerID, activationToken: activation)
    }

    /// Ends pick `id` with `documents`: read-only descriptors of the copies, names, types.
    func respond(_ id: UInt64, _ documents: [PickedDocument], provider: String, activationToken: String?) {
        var fds: [DBusValue] = []
        for d in documents {
            guard let fd = try? d.data.openForReading().take() else {
                replies.fail(id, DBusError(.failed, "a copy could not be opened for reading"))
                return
            }
            fds.append(.unixFD(UnixFD(owning: fd)))
        }
        var results: [String: DBusValue] = [
            PickContract.ResultKey.fds: .array(element: .unixFD, fds),
            PickContract.ResultKey.names: .strings(documents.map(\.name)),
            PickContract.ResultKey.types: .strings(documents.map(\.type)),
            PickContract.ResultKey.provider: .string(provider),
        ]
        if let activationToken, !activationToken.isEmpty { results[PickContract.ResultKey.activationToken] = .string(activationToken) }
        replies.complete(id, Response(code: ReplyCode.success.rawValue, results: results))
    }

    /// `info[key]` as a list of strings (absent: empty).
    private static func strings(_ info: [String: DBusValue], _ key: String) throws -> [String] {
        guard let v = info[key]?.unwrapped else { return [] }
        guard let items = v.arrayElements, let list = Optional(items.compactMap(\.string)), list.count == items.count else {
            throw DBusError(.invalidArgs, "info '\(key)' must be a list of strings (as)")
        }
        return list
    }
}
