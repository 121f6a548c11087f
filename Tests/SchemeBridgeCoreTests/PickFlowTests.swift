import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// A pick after its call (``PickFlow``), over recording ports and a real spawned provider: the
/// named provider starts with the request's token and its exit without an answer fails the
/// request; a cancelled sheet is code 1; "Files…" runs the daemon's file chooser with the sheet's
/// fresh token; a request closed while the sheet was up starts nothing.
@Suite struct PickFlowTests {
    typealias Bus = ReplyRequestsTests.Bus
    typealias Answer = ReplyRequestsTests.Answer

    /// A chooser port that runs `onAsk` (closing a request, say), then answers as told.
    final class Sheet: ChooserPort {
        let answer: Result<ChooserAnswer, OpenFailure>
        let onAsk = Mutex<(@Sendable () -> Void)?>(nil)
        init(_ answer: Result<ChooserAnswer, OpenFailure>) { self.answer = answer }
        func choose(_ question: HandlerQuestion, caller: Caller, context: ChooserContext) async throws(OpenFailure) -> ChooserAnswer {
            onAsk.withLock { $0 }?()
            return try answer.get()
        }
    }

    typealias Flow = PickFlow<Bus, PlanLauncherTests.Port, Sheet>
    static let caller = Caller(busName: ":1.9", id: "org.example.App")

    /// The flow over a tree with two PNG providers; `scanner.desktop` writes the pick token it
    /// was started with to `<root>/token` and exits.
    struct Setup {
        let s = PickingTests.Setup()
        let bus = Bus()
        var token: String { s.tree.root + "/token" }

        func flow(_ sheet: Sheet) -> Flow {
            let script = s.tree.bin + "/scan"
            s.tree.write(script, "#!/bin/sh\nprintf %s \"$SCHEMEBRIDGE_PICK_TOKEN\" > \(token).part && mv \(token).part \(token)\n")
            chmod(script, 0o755)
            s.tree.entry(1, "scanner.desktop", exec: "\(script) %U", extra: "Name=Scanner\nX-SchemeBridge-Provides=image/png;")
            s.tree.entry(1, "photos.desktop", extra: "Name=Photos\nX-SchemeBridge-Provides=image/*;")
            let broker = s.broker()
            let replies = ReplyRequests(port: bus)
            let starter = HandlerStarter(baseEnvironment: ["PATH": "/usr/bin:/bin"], callbackRoutes: broker.callbackRoutes,
                                         pasteboards: PasteboardStore(disk: nil), log: { _ in })
            let launcher = PlanLauncher(starter: starter, port: PlanLauncherTests.Port(), splash: SplashHelper(environment: [:], log: { _, _ in }),
                                        watcher: replies, usedActivationTokens: UsedActivationTokens())
            return Flow(broker: broker, replies: replies, launcher: launcher, chooser: sheet, log: { _, _ in })
        }

        func pick(provider: String? = nil) throws -> Flow.Pick {
            Flow.Pick(subject: try PickSubject(["image/png"]), provider: provider, multiple: false, context: ChooserContext(activationToken: "caller-token"))
        }
    }

    @Test func theNamedProviderStartsWithTheTokenAndItsExitWithoutAnAnswerFailsThePick() async throws {
        let setup = Setup()
        let flow = setup.flow(Sheet(.failure(OpenFailure(.failed, "no sheet for a named provider"))))
        let pick = try setup.pick(provider: "scanner.desktop")
        let (request, decision) = try flow.begin(pick, caller: Self.caller, sender: ":1.9")
        flow.replies.publish(request.id)
        await flow.carryOut(request, pick, decision: decision, caller: Self.caller) { _ in Issue.record("no file chooser for a provider") }
        #expect(await waitUntil(timeout: .seconds(20)) { (try? String(contentsOfFile: setup.token, encoding: .utf8)) == request.token } != nil)
        #expect(await waitUntil(timeout: .seconds(20)) { !setup.bus.answers.isEmpty } != nil)
        #expect(setup.bus.answers == [Answer(ending: .handlerExited(status: 0))])
    }

    @Test func aCancelledSheetIsCodeOne() async throws {
        let setup = Setup()
        let flow = setup.flow(Sheet(.failure(OpenFailure(.cancelled, "the user closed the sheet"))))
        let pick = try setup.pick()
        let (request, decision) = try flow.begin(pick, caller: Self.caller, sender: ":1.9")
        guard case .ask = decision else { Issue.record("\(decision)"); return }
        flow.replies.publish(request.id)
        await flow.carryOut(request, pick, decision: decision, caller: Self.caller) { _ in Issue.record("nothing was picked") }
        #expect(setup.bus.answers == [Answer(code: 1)])
        #expect(!FileManager.default.fileExists(atPath: setup.token))
    }

    @Test func filesRunsTheFileChooserWithTheSheetsFreshToken() async throws {
        let setup = Setup()
        let flow = setup.flow(Sheet(.success(.picked(.files, always: false, activationToken: "fresh-token"))))
        let pick = try setup.pick()
        let (request, decision) = try flow.begin(pick, caller: Self.caller, sender: ":1.9")
        let given = Mutex<[String?]>([])
        await flow.carryOut(request, pick, decision: decision, caller: Self.caller) { token in given.withLock { $0.append(token) } }
        #expect(given.withLock { $0 } == ["fresh-token"], "never the caller's spent token")
        #expect(flow.replies.table.request(request.id)?.handlerID == .files)
    }

    @Test func aPickClosedWhileTheSheetWasUpStartsNothing() async throws {
        let setup = Setup()
        let sheet = Sheet(.success(.picked(.files, always: false)))
        let flow = setup.flow(sheet)
        let pick = try setup.pick()
        let (request, decision) = try flow.begin(pick, caller: Self.caller, sender: ":1.9")
        flow.replies.publish(request.id)
        sheet.onAsk.withLock { $0 = { _ = flow.replies.close(request.id) } }
        await flow.carryOut(request, pick, decision: decision, caller: Self.caller) { _ in Issue.record("nothing is started") }
        #expect(setup.bus.answers == [Answer(code: 1)], "the caller's Close, and nothing after it")
    }

    @Test func onlyTheProviderOfAPickHandsDocumentsOver() async throws {
        let setup = Setup()
        let flow = setup.flow(Sheet(.failure(OpenFailure(.failed, "no sheet"))))
        let png = setup.s.tree.root + "/scan.png"
        _ = FileManager.default.createFile(atPath: png, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24)))
        let (types, fd) = (PickingTests.system, HeldFD(reading: png))
        let reply = try flow.replies.begin(caller: ":1.9", handlerID: "scanner.desktop", timeout: .seconds(600))
        flow.replies.started(reply.id, handler: .activated(owner: ":1.77", process: nil))
        await #expect(throws: ServiceFailure(.invalidArgument, "this token is for a reply, not a pick: answer it with Reply")) {
            _ = try await flow.provided([fd], names: [], types: [], token: reply.token, sender: ":1.77", database: types, descriptors: DescriptorWork())
        }
        let (pick, _) = try flow.begin(try setup.pick(provider: "scanner.desktop"), caller: Self.caller, sender: ":1.9")
        flow.replies.started(pick.id, handler: .activated(owner: ":1.77", process: nil))
        await #expect(throws: ServiceFailure.self) {
            _ = try await flow.provided([fd], names: [], types: [], token: pick.token, sender: ":1.78", database: types, descriptors: DescriptorWork())
        }
        let (request, documents) = try await flow.provided([fd], names: ["scan.png"], types: ["image/png"], token: pick.token, sender: ":1.77",
                                                           database: types, descriptors: DescriptorWork())
        #expect(request.id == pick.id && documents.map(\.name) == ["scan.png"])
    }

    @Test func aRequestStoppedOnTheWayIsCancelledOrFailedByItsError() {
        #expect(Answer(error: ServiceFailure(.cancelled, "closed")).code == 1)
        let failed = Answer(error: ServiceFailure(.noHandler, "no provider was decided"))
        #expect(failed.code == 2 && failed.ending == RequestEnding(errorName: "NoHandler", message: "no provider was decided"))
    }
}
