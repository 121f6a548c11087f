import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The chooser's rules (``Chooser``, ``ChooserDialog``): what a chooser is shown, which chooser
/// asks, and what each kind of answer means — a dialog program's, a `Chooser1` client's.
@Suite struct ChooserRuleTests {
    static let candidates = [ChooserCandidate(id: "a.desktop", name: "A", icon: ""), ChooserCandidate(id: "-x.desktop", name: "X", icon: ""),
                             ChooserCandidate(id: "b.desktop", name: "B", icon: "b")]

    /// A `Chooser1` client that answers as told; the dialogs' message as one line of the subject.
    final class Port: ChooserShowing {
        let reply: BusChooserReply
        let asked = Mutex<[ChooserDialog]>([])
        init(_ reply: BusChooserReply) { self.reply = reply }
        func requestLine(_ dialog: ChooserDialog) -> [UInt8] { Array(dialog.subject.utf8) }
        func decodeAnswer(_ output: [UInt8]) throws(DialogDecodeFailure) -> DialogReply { throw DialogDecodeFailure("not used") }
        func busChooserAvailable() async -> Bool { true }
        func askBus(_ dialog: ChooserDialog, timeout: Duration) async -> BusChooserReply {
            asked.withLock { $0.append(dialog) }
            return reply
        }
    }

    @Test func theDialogIsWorkedOutOnceFromTheQuestionTheCallerAndTheContext() {
        let question = HandlerQuestion(subject: "pick:text/plain", candidates: Self.candidates)
        let cli = Caller(busName: ":1.4", id: nil, throughCLI: true)
        let asked = ChooserDialog(question, caller: cli, name: "", context: ChooserContext(activationToken: "bad\u{1}token", title: "Pick one"))
        #expect(asked.kind == "pick" && asked.title == "Pick one")
        #expect(asked.candidates.map(\.id) == ["a.desktop", "b.desktop"], "an id starting with - is never offered")
        #expect(asked.asker == ChooserDialog.Asker(id: "", name: "", commandLine: true))
        #expect(!asked.canRemember && asked.activationToken == nil, "unidentified: nothing remembered; a bad token is not handed on")
        #expect(asked.targetKind(Self.candidates[0]) == nil)

        let share = ShareQuestion(types: ["text/plain"], count: 1, activationToken: "share-token")
        let targets = HandlerQuestion(subject: ShareTargetID.choiceSubject,
                                      candidates: [ChooserCandidate(id: "a.desktop:send", name: "Send", icon: ""),
                                                   ChooserCandidate(id: "builtin:copy", name: "Copy", icon: "")])
        let app = Caller(busName: ":1.5", id: "org.example.App")
        let sheet = ChooserDialog(targets, caller: app, name: "Example", context: ChooserContext(activationToken: "caller-token", share: share))
        #expect(sheet.kind == "share" && sheet.canRemember && sheet.activationToken == "share-token", "the sharing app's token")
        #expect(sheet.asker == ChooserDialog.Asker(id: "org.example.App", name: "Example", commandLine: false))
        #expect(sheet.candidates.map { sheet.targetKind($0) } == ["app", "builtin"])
    }

    @Test func aDialogProgramsAnswer() {
        func decoded(_ reply: DialogReply) -> ([UInt8]) throws(DialogDecodeFailure) -> DialogReply { { _ throws(DialogDecodeFailure) in reply } }
        let garbage: ([UInt8]) throws(DialogDecodeFailure) -> DialogReply = { _ throws(DialogDecodeFailure) in throw DialogDecodeFailure("not JSON") }
        #expect(Chooser<Port>.answer(status: 0, output: [1], decode: decoded(.chosen(id: "b.desktop", always: true))) == .picked("b.desktop", always: true))
        #expect(Chooser<Port>.answer(status: 0, output: [1], decode: decoded(.chosen(id: "b.desktop", always: false, activationToken: "fresh")))
                == .picked("b.desktop", always: false, activationToken: "fresh"))
        #expect(Chooser<Port>.answer(status: 1, output: [1], decode: decoded(.cancelled)) == .cancelled(reason: "the user cancelled the dialog"))
        guard case .failed(let why) = Chooser<Port>.answer(status: 0, output: [1], decode: decoded(.failed(reason: "no GTK"))) else {
            Issue.record("a dialog that could not be shown is a failure"); return
        }
        #expect(why.contains("no GTK"))
        #expect(Chooser<Port>.answer(status: 128 + 15, output: [], decode: garbage) == .cancelled(reason: "the dialog was ended by signal 15"),
                "ended by a signal with nothing said: the session closing")
        guard case .failed(let reason) = Chooser<Port>.answer(status: 3, output: Array("ok\n".utf8), decode: garbage) else {
            Issue.record("no answer of the message must be a failure, never a cancel"); return
        }
        #expect(reason.contains("exit status 3") && reason.contains("not JSON"))
        guard case .failed = Chooser<Port>.answer(status: 128 + 15, output: [65], decode: garbage) else {
            Issue.record("a signal after printing something else is still a failure"); return
        }
    }

    @Test func aBusClientsAnswer() {
        let timeout = Duration.seconds(7)
        #expect(Chooser<Port>.answer(.answered(id: "a.desktop", always: false), timeout: timeout) == .picked("a.desktop", always: false))
        #expect(Chooser<Port>.answer(.answered(id: "", always: true), timeout: timeout) == .cancelled(reason: "the user cancelled the chooser"))
        #expect(Chooser<Port>.answer(.failed(BusCallFailure(name: "org.freedesktop.DBus.Error.NoReply", message: "")), timeout: timeout)
                == .cancelled(reason: "the chooser on the bus gave no answer in 7 s ([Chooser] Timeout=)"))
        #expect(Chooser<Port>.answer(.wrongSignature, timeout: timeout) == .failed(reason: "the chooser on the bus answered with the wrong signature (expected (sb))"))
        #expect(Chooser<Port>.answer(.failed(BusCallFailure(name: "org.example.Error", message: "broken")), timeout: timeout)
                == .failed(reason: "the chooser on the bus failed: org.example.Error: broken"))
    }

    @Test func withBusTrueTheClientOnTheBusIsAskedAndNothingOfferableIsACancel() async throws {
        let s = DecidingTests.Setup()
        let broker = s.broker(config: "[Chooser]\nBus=true\n")
        let port = Port(.answered(id: "b.desktop", always: true))
        let chooser = Chooser(broker: broker, port: port, environment: [:], busName: "io.example.Chooser1", log: { _, _ in })
        let app = Caller(busName: ":1.5", id: "org.example.App")
        let answer = try await chooser.choose(HandlerQuestion(subject: "todo", candidates: Self.candidates), caller: app, context: ChooserContext())
        #expect(answer == .picked("b.desktop", always: true))
        #expect(port.asked.withLock { $0.map(\.subject) } == ["todo"])
        let none = try await chooser.choose(HandlerQuestion(subject: "todo", candidates: [Self.candidates[1]]), caller: app, context: ChooserContext())
        #expect(none == .cancelled(reason: "no application could be offered"))
        #expect(port.asked.withLock { $0.count } == 1)
    }
}
