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

    func requestLine(_ d: ChooserDialog) -> [UInt8] { Self.request(d).line }

    /// The question `d` as the dialogs' message puts it (the bus chooser is told the same).
    static func request(_ d: ChooserDialog) -> DialogRequest {
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
                             parentWindow: d.parentWindow, receivedFrom: d.receivedFrom, share: described)
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
        let (question, c) = (ChooserContract.newQuestion(), ChooserContract.self)
        do {
            let reply = try await withTaskCancellationHandler {
                try await connection.call(destination: c.busName, path: c.objectPath, interface: c.interface, member: c.choose, c.chooseArguments(Self.request(d), question: question), timeout: timeout)
            } onCancel: { try? connection.send(destination: c.busName, path: c.objectPath, interface: c.interface, member: c.close, c.closeArguments(question)) }
            guard let answer = ChooserContract.answer(reply) else { return .wrongSignature }
            return .answered(id: answer.id, always: answer.always)
        } catch {
            return .failed(BusCallFailure(name: DBusError.from(error).name.rawValue, message: DBusError.from(error).message))
        }
    }
}
