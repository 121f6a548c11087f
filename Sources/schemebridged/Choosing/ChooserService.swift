import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The chooser: the core's ``Chooser`` (which chooser, the spare sheet, the slots, what an answer
/// means) over ``ChooserDialogs``.
typealias ChooserService = Chooser<ChooserDialogs>

/// The core's ``ChooserShowing``: the dialogs' message (docs/CONTRACT.md, "The dialogs") — a
/// question is one ``DialogRequest`` line on the dialog's stdin, its answer one ``DialogAnswer`` —
/// and the `io.github.schemebridge.Chooser1` client.
struct ChooserDialogs: ChooserShowing {
    let connection: Connection

    func requestLine(_ d: ChooserDialog) -> [UInt8] {
        let offered = d.candidates.map { c in
            DialogRequest.Candidate(id: c.id.text, name: c.name, icon: c.icon, kind: d.targetKind(c).flatMap { DialogRequest.Candidate.Kind(rawValue: $0) } ?? .app)
        }
        let described = d.share.map { s in
            DialogRequest.Share(count: s.count, types: s.types, items: s.previews.map { p in
                DialogRequest.Item(kind: DialogRequest.Item.Kind(rawValue: p.kind.rawValue) ?? .data, name: p.name, type: p.type, size: p.size,
                                   path: p.path, url: p.url, text: p.text)
            })
        }
        return DialogRequest(kind: DialogRequest.Kind(rawValue: d.kind) ?? .scheme, subject: d.subject,
                             caller: .init(id: d.asker.id, name: d.asker.name, commandLine: d.asker.commandLine),
                             candidates: offered, canRemember: d.canRemember, title: d.title, activationToken: d.activationToken,
                             parentWindow: d.parentWindow, receivedFrom: d.receivedFrom, share: described).line
    }

    func decodeAnswer(_ output: [UInt8]) throws(DialogDecodeFailure) -> DialogReply {
        do throws(DialogMessageError) {
            let answer = try DialogAnswer(output: output)
            switch answer.answer {
            case .chosen: return .chosen(id: answer.id ?? "", always: answer.always ?? false, activationToken: answer.activationToken)
            case .cancelled: return .cancelled
            case .failed: return .failed(reason: answer.reason)
            }
        } catch {
            throw DialogDecodeFailure(error.description)
        }
    }

    func busChooserAvailable() async -> Bool {
        await BusDriver(connection).isAvailable(ChooserContract.busName.rawValue, timeout: .seconds(5))
    }

    func askBus(_ d: ChooserDialog, timeout: Duration) async -> BusChooserReply {
        typealias Key = ChooserContract.ContextKey
        var context: [String: DBusValue] = [Key.caller: .string(d.asker.id), Key.callerName: .string(d.asker.name), Key.kind: .string(d.kind),
                                            Key.canRemember: .boolean(d.canRemember)]
        if let token = d.activationToken { context[Key.activationToken] = .string(token) }
        if let parentWindow = d.parentWindow { context[Key.parentWindow] = .string(parentWindow) }
        if let title = d.title { context[Key.title] = .string(title) }
        if let share = d.share {
            context[Key.shareTypes] = .strings(share.types)
            context[Key.shareCount] = .uint32(UInt32(clamping: share.count))
            context[Key.targetKinds] = .strings(d.candidates.map { d.targetKind($0) ?? "app" })
        }
        let list = DBusValue.array(element: .structure([.string, .string, .string]),
                                   d.candidates.map { .structure([.string($0.id.text), .string($0.name), .string($0.icon)]) })
        do {
            let reply = try await connection.call(destination: ChooserContract.busName, path: ChooserContract.objectPath, interface: ChooserContract.interface,
                                                  member: ChooserContract.choose, [.string(d.subject), list, .vardict(context)], timeout: timeout)
            guard reply.count == 2, case .string(let id) = reply[0], case .boolean(let always) = reply[1] else { return .wrongSignature }
            return .answered(id: id, always: always)
        } catch {
            return .failed(BusCallFailure(name: error.name.rawValue, message: error.message))
        }
    }
}
