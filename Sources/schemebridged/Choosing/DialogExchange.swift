import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// The dialogs' message (docs/CONTRACT.md, "The dialogs"), adapted: a chooser question becomes
/// one ``DialogRequest`` line on the dialog's stdin (a socket the service made), and what the
/// program printed becomes a ``ChooserAnswer``. The same for the shipped `schemebridge-dialog`
/// (started ahead or not) and `[Chooser] Command=`.
enum DialogExchange {
    /// Who asks, as the dialog names it: the label the service computed (``CallerLabel``), and
    /// whether it is our command line run from a terminal (no app behind it).
    struct Asker: Sendable {
        var id: String
        var name: String
        var commandLine: Bool
    }

    /// The request for a question about `subject` (`kind`: ``ChooserPrompt/kind``).
    static func request(kind: String, subject: String, candidates: [ChooserCandidate], asker: Asker, canRemember: Bool, title: String?,
                        activationToken: String?, parentWindow: String?, receivedFrom: String?, share: ShareQuestion?) -> DialogRequest {
        let dialogKind = DialogRequest.Kind(rawValue: kind) ?? .scheme
        let offered = candidates.map { c -> DialogRequest.Candidate in
            let targetKind = share == nil ? DialogRequest.Candidate.Kind.app : DialogRequest.Candidate.Kind(rawValue: ShareQuestion.kind(c.desktopID)) ?? .app
            return DialogRequest.Candidate(id: c.desktopID, name: c.name, icon: c.icon, kind: targetKind)
        }
        let described = share.map { s in
            DialogRequest.Share(count: s.count, types: s.types, items: s.previews.map { p in
                DialogRequest.Item(kind: DialogRequest.Item.Kind(rawValue: p.kind.rawValue) ?? .data, name: p.name, type: p.type, size: p.size,
                                   path: p.path, url: p.url, text: p.text)
            })
        }
        return DialogRequest(kind: dialogKind, subject: subject, caller: .init(id: asker.id, name: asker.name, commandLine: asker.commandLine),
                             candidates: offered, canRemember: canRemember, title: title,
                             activationToken: activationToken.flatMap { ActivationToken.isValid($0) ? $0 : nil },
                             parentWindow: parentWindow, receivedFrom: receivedFrom, share: described)
    }

    /// The answer in a finished dialog's `output` and exit `status`: its ``DialogAnswer``; a
    /// dialog that answered nothing because a signal ended it (the session closing) is a cancel;
    /// anything else that is no answer of the contract — nothing, a line of another protocol,
    /// another version — is the dialog's failure (the caller gets `NoChooser`), never a cancel.
    static func answer(status: Int32, output: [UInt8]) -> ChooserAnswer {
        do throws(DialogMessageError) {
            let answer = try DialogAnswer(output: output)
            switch answer.answer {
            case .chosen: return .picked(answer.id ?? "", always: answer.always ?? false, activationToken: answer.activationToken)
            case .cancelled: return .cancelled(reason: "the user cancelled the dialog")
            case .failed: return .failed(reason: "the chooser failed: the dialog could not be shown: \(answer.reason ?? "no reason given")")
            }
        } catch {
            if status > 128 && status <= 128 + 64 && output.isEmpty { return .cancelled(reason: "the dialog was ended by signal \(status - 128)") }
            return .failed(reason: "the chooser failed (exit status \(status)) with no answer of the dialogs' message: \(error.description); "
                + "the service's log has its message")
        }
    }
}
