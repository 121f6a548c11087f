import DBus
import Glibc
import LinuxSystem
import SchemeBridgeContract
import SchemeBridgeCore

/// The documents of a pick: what the provider (or the file chooser) hands over is checked by
/// the core's rules (``PickAnswer``: how many, regular files only, of a type the caller asked
/// for) and copied into sealed memfds on the descriptor threads, so nothing the provider does
/// afterwards changes what the caller reads; the caller gets read-only descriptors of the copies.
extension Picking {
    /// One checked, copied document.
    struct PickedDocument: Sendable {
        let data: SealedData
        let name: String
        let type: String
    }

    /// `ProvideDocuments(s token, ah fds, a{sv} info)` from `sender`.
    func provideDocuments(token: String, fds: [UnixFD], info: [String: DBusValue], sender: String) async throws(DBusError) {
        let request = try await replies.pending(token: token, sender: sender)
        guard case .pick(let subject, let multiple) = request.purpose else {
            throw DBusError(.invalidArgs, "this token is for a reply, not a pick: answer it with Reply")
        }
        let names = try Self.strings(info, PickContract.InfoKey.names)
        let claimed = try Self.strings(info, PickContract.InfoKey.types)
        let activation = try info.contractString(PickContract.InfoKey.activationToken)
        let documents = try await takeDocuments(fds.map(\.rawValue), names: names, types: claimed, subject: subject, multiple: multiple,
                                                key: sender, keep: fds)
        respond(request.id, documents, provider: request.handlerID, activationToken: activation)
    }

    /// Checks and copies `fds` (the caller's `keep` holds them open meanwhile).
    func takeDocuments(_ fds: [Int32], names: [String], types: [String], subject: PickSubject, multiple: Bool,
                       key: String, keep: [UnixFD]) async throws(DBusError) -> [PickedDocument] {
        try adapt { () throws(OpenFailure) in
            try PickAnswer.checkCount(fds.count, multiple: multiple)
            try PickAnswer.checkLists(names: names, types: types, count: fds.count)
        }
        let database = documents.types
        return try await descriptors.run(for: key) { () throws(DBusError) -> [PickedDocument] in
            withExtendedLifetime(keep) {}
            var out: [PickedDocument] = []
            var budget = PickBudget()
            for (i, fd) in fds.enumerated() {
                var st = stat()
                guard fstat(fd, &st) == 0 else { throw DBusError(.invalidArgs, "document \(i + 1) cannot be examined (errno \(errno))") }
                if let refusal = PickAnswer.refusal(mode: UInt32(st.st_mode), index: i) { throw DBusError(refusal) }
                let data: SealedData
                do throws(PasteboardError) { data = try FileDescriptor.lending(fd) { d throws(PasteboardError) in try SealedData.take(d, limit: budget.nextLimit) } } catch { throw DBusError(error) }
                budget.spend(data.size)
                let name = PickAnswer.name(i < names.count ? names[i] : nil, index: i)
                let head = Self.head(of: data)
                let type = try adapt { () throws(OpenFailure) in
                    try PickAnswer.type(claimed: i < types.count ? types[i] : nil, name: name, head: head, subject: subject, types: database)
                }
                out.append(PickedDocument(data: data, name: name, type: type))
            }
            return out
        }
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

    /// The first bytes of `data` (what the type is sniffed from).
    private static func head(of data: SealedData) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(min(data.size, Int64(ContentTypeDatabase.defaultSniffLimit))))
        let n = out.withUnsafeMutableBytes { pread(data.descriptor.rawValue, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(out.prefix(n)) : []
    }

    /// `info[key]` as a list of strings (absent: empty).
    private static func strings(_ info: [String: DBusValue], _ key: String) throws(DBusError) -> [String] {
        guard let v = info[key]?.unwrappedOnceOrSelf else { return [] }
        guard let items = v.arrayElements, let list = Optional(items.compactMap(\.string)), list.count == items.count else {
            throw DBusError(.invalidArgs, "info '\(key)' must be a list of strings (as)")
        }
        return list
    }
}
