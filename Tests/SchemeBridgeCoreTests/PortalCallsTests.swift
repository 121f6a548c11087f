import Foundation
import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The portal backends' calls in progress (issue 40), without a bus: each is answered once, by
/// its work or at once by the frontend's `Close`, which cancels the work and says where it was;
/// the frontend judged once per connection; the answer made at once when nobody is asked.
@Suite struct PortalCallsTests {
    /// A gate a test opens once: what waits on it resumes then (no clock involved).
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
        func open() {
            for c in state.withLock({ s -> [CheckedContinuation<Void, Never>] in
                s.open = true
                defer { s.waiting = [] }
                return s.waiting
            }) { c.resume() }
        }
        func wait() async {
            await withCheckedContinuation { c in
                let now = state.withLock { s -> Bool in
                    if !s.open { s.waiting.append(c) }
                    return s.open
                }
                if now { c.resume() }
            }
        }
    }

    @Test func theWorksAnswerIsTheAnswerAndTheCallIsThenGone() async {
        let calls = PortalCalls<Int>()
        let answer = await calls.run(handle: "/r/1", closed: -1) { progress in
            #expect(progress.enter(.delegated))
            return 7
        }
        #expect(answer == 7)
        #expect(!calls.isRunning("/r/1") && calls.close("/r/1") == nil)
    }

    @Test func aCloseAnswersAtOnceCancelsTheWorkAndSaysWhereItWas() async {
        let calls = PortalCalls<Int>()
        let (entered, workEnded, done) = (Gate(), Gate(), Gate())
        let sawCancel = Mutex<(cancelled: Bool, enterAfterClose: Bool?)>((false, nil))
        async let answer = calls.run(handle: "/r/2", closed: -1) { progress in
            _ = progress.enter(.picking(42))
            entered.open()
            // Waits as a dialog does, until its task is cancelled.
            await withTaskCancellationHandler {
                await workEnded.wait()
            } onCancel: {
                sawCancel.withLock { $0.cancelled = true }
                workEnded.open()
            }
            sawCancel.withLock { $0.enterAfterClose = progress.enter(.delegated) }
            done.open()
            return 7  // dropped: the call was answered by the Close
        }
        await entered.wait()
        #expect(calls.isRunning("/r/2"))
        #expect(calls.close("/r/2") == .picking(42))
        #expect(await answer == -1)
        // The work's task was cancelled by the Close (a generous ceiling: it may enter its
        // cancellation handler only now, and then hears the cancel there).
        var cancelled = false
        for _ in 0..<1200 where !cancelled {
            cancelled = sawCancel.withLock { $0.cancelled }
            if !cancelled { try? await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(cancelled)
        workEnded.open()
        await done.wait()
        #expect(sawCancel.withLock { $0.enterAfterClose } == false)
        // Closed once: a second Close finds nothing.
        #expect(calls.close("/r/2") == nil)
    }

    @Test func aCloseBeforeTheWorkStartsStopsItThere() async {
        let calls = PortalCalls<String>()
        let ran = Mutex(false)
        let answer = await calls.run(handle: "/r/3", closed: "closed", registered: { #expect(calls.close("/r/3") == .deciding) }) { _ in
            ran.withLock { $0 = true }
            return "worked"
        }
        #expect(answer == "closed" && !ran.withLock { $0 })
    }

    /// The frontend's `Close` while the dialog is up takes the dialog down: the work's task is
    /// cancelled and the chooser program is stopped (SIGTERM: a dialog ended by a signal is a
    /// cancel, ``Chooser``).
    @Test func aCloseTakesTheDialogDown() async throws {
        let tree = XDGTree(dataDirCount: 0)
        let marker = tree.root + "/dialog.pid"
        let dialog = tree.bin + "/dialog"
        tree.write(dialog, "#!/bin/sh\necho $$ > '\(marker).part' && mv '\(marker).part' '\(marker)'\nexec sleep 300\n")
        chmod(dialog, 0o755)
        let calls = PortalCalls<String>()
        let ended = Gate()
        let outcome = Mutex<ChooserProcess.Outcome?>(nil)
        async let answer = calls.run(handle: "/r/dialog", closed: "closed") { _ in
            let o = await ChooserProcess.run(argv: [dialog], environment: ["PATH": "/usr/bin:/bin"], input: Array("question\n".utf8), timeout: .seconds(600))
            outcome.withLock { $0 = o }
            ended.open()
            return "answered"
        }
        // The dialog is up once it wrote its pid (a generous ceiling: a loaded machine).
        var pid: Int32?
        for _ in 0..<1200 where pid == nil {
            pid = (try? String(contentsOfFile: marker, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let dialogPID = try #require(pid, "the dialog never started")
        #expect(calls.close("/r/dialog") == .deciding)
        #expect(await answer == "closed")
        // Gone (reaped) within a generous ceiling; then its end is known.
        var gone = false
        for _ in 0..<1200 where !gone {
            gone = kill(dialogPID, 0) != 0
            if !gone { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(gone, "the dialog \(dialogPID) is still there")
        guard gone else { _ = kill(dialogPID, SIGKILL); return }
        await ended.wait()
        #expect(outcome.withLock { $0 } == .finished(status: 128 + SIGTERM, output: []))
    }

    @Test func closingAnUnknownHandleDoesNothing() {
        #expect(PortalCalls<Int>().close("/nowhere") == nil)
    }

    @Test func theFrontendIsJudgedOncePerConnectionRefusalsAreNotKept() {
        let frontends = PortalFrontends()
        let portal = EngineProcess(executable: "/usr/libexec/xdg-desktop-portal", executableProtected: true)
        let impostor = EngineProcess(executable: "/usr/bin/python3.11", executableProtected: true)
        #expect(frontends.pid(of: ":1.7") == nil)
        #expect(frontends.judge(":1.7", pid: 4321, process: portal) == nil)
        #expect(frontends.pid(of: ":1.7") == 4321)
        #expect(frontends.judge(":1.8", pid: 99, process: impostor)?.contains("not xdg-desktop-portal") == true)
        #expect(frontends.pid(of: ":1.8") == nil)
        #expect(frontends.judge(":1.9", pid: nil, process: portal)?.contains("does not say") == true)
        #expect(frontends.judge(":1.9", pid: 0, process: portal) != nil && frontends.judge(":1.9", pid: 12, process: nil)?.contains("could not be examined") == true)
        #expect(frontends.pid(of: ":1.9") == nil)
    }

    /// A route or a remembered choice is answered at once, with no chooser; when the user is to
    /// be asked there is no answer at once (the adapter then runs the chooser in a task).
    @Test func anAnswerAtOnceWhenNobodyIsAsked() async throws {
        let s = DecidingTests.Setup()
        for id in ["a", "b", "c"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        let broker = s.broker(config: "[Routes]\ntodo from org.test.Routed=c.desktop\n")
        let url = PortalAppChooserRuleTests.url
        let routed = try AppChooserRequest(appID: "org.test.Routed", choices: [], options: url)
        let answer = broker.answerAtOnce(routed, caller: routed.caller(frontend: ":1.5", pid: 7))
        #expect(answer?.response == .success && answer?.choice == "c" && answer?.reason.contains("[Routes]") == true, "\(String(describing: answer))")
        let other = try AppChooserRequest(appID: "org.test.Other", choices: [], options: url)
        #expect(broker.answerAtOnce(other, caller: other.caller(frontend: ":1.5", pid: 7)) == nil)
        let none = try AppChooserRequest(appID: "org.test.Other", choices: [], options: ["content_type": "x-scheme-handler/nope", "uri": "nope:x"])
        #expect(broker.answerAtOnce(none, caller: none.caller(frontend: ":1.5", pid: 7))?.response == .other)
    }

    /// The daemon's side of the FileChooser flow, recorded: what was delegated, which provider
    /// was started, and the answer as a string.
    final class FakeSteps: PortalFileChooserPort {
        let provided: Result<[[UInt8]], OpenFailure>
        let calls = Mutex<[String]>([])
        init(_ provided: Result<[[UInt8]], OpenFailure>) { self.provided = provided }
        func delegated(_ progress: PortalCallProgress) async -> String {
            calls.withLock { $0.append("delegated") }
            return "the desktop's answer"
        }
        func provide(_ provider: DesktopID, subject: PickSubject, progress: PortalCallProgress) async throws(OpenFailure) -> [[UInt8]] {
            calls.withLock { $0.append("provide \(provider.fileName) \(subject.choiceKey)") }
            return try provided.get()
        }
        func answer(_ response: PortalResponse, paths: [[UInt8]]) -> String {
            "\(response.rawValue) " + paths.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",")
        }
        func log(_ message: String) {}
    }

    /// `FileChooser.OpenFile` after its route: the desktop's chooser, the sheet's provider and
    /// its documents, "Files…", a cancel (1) and a failure (2).
    @Test func anOpenFileGoesToTheProviderTheDesktopOrNowhere() async throws {
        let s = PickingTests.Setup()
        s.tree.entry(1, "scanner.desktop", extra: "Name=Scanner\nX-SchemeBridge-Provides=image/png;")
        let broker = s.broker(config: "")
        let app = Caller(busName: ":1.4", id: "org.test.App", sandboxed: true)
        let request = PortalFileChooserRuleTests.request([[FileChooserRequest.Pattern(kind: 1, pattern: "image/png")]])
        let route = broker.route(request, caller: app, ownRequest: false)
        guard case .pick = route else { Issue.record("no sheet: \(route)"); return }
        let scan: Result<[[UInt8]], OpenFailure> = .success([Array("/inbox/org.test.App/scan.png".utf8)])
        func run(_ chooser: OnePathTests.FakeChooser, _ steps: FakeSteps, route: FileChooserRoute? = nil) async -> String {
            await broker.openFile(request, route: route ?? broker.route(request, caller: app, ownRequest: false), caller: app,
                                  chooser: chooser, port: steps, progress: PortalCallProgress())
        }
        // The desktop's chooser, unchanged, for a delegated route: no sheet.
        var steps = FakeSteps(scan)
        let never = OnePathTests.FakeChooser(.cancelled(reason: "no"))
        #expect(await run(never, steps, route: .delegate("a folder")) == "the desktop's answer" && never.count == 0)
        // The provider picked on the sheet (titled, attached to the app's window): its documents.
        steps = FakeSteps(scan)
        let picks = OnePathTests.FakeChooser(.picked("scanner.desktop", always: false))
        #expect(await run(picks, steps) == "0 /inbox/org.test.App/scan.png")
        #expect(steps.calls.withLock { $0 } == ["provide scanner.desktop pick:image/png"])
        #expect(picks.asked.withLock { $0.first?.2 } == ChooserContext(title: "Insert a scan", parentWindow: "x11:2a"))
        // "Files…": the desktop's chooser.
        steps = FakeSteps(scan)
        #expect(await run(OnePathTests.FakeChooser(.picked(Broker.filesCandidate.id, always: false)), steps) == "the desktop's answer")
        // The sheet cancelled: 1, nothing started; a sheet that cannot be shown: 2.
        steps = FakeSteps(scan)
        #expect(await run(OnePathTests.FakeChooser(.cancelled(reason: "closed")), steps) == "1 " && steps.calls.withLock { $0 }.isEmpty)
        #expect(await run(OnePathTests.FakeChooser(.failed(reason: "no display")), steps) == "2 ")
        // The provider cancelled: 1; it failed, or gave nothing: 2.
        #expect(await run(picks, FakeSteps(.failure(OpenFailure(.cancelled, "the user went back")))) == "1 ")
        #expect(await run(picks, FakeSteps(.failure(OpenFailure(.launchFailed, "crashed")))) == "2 ")
        #expect(await run(picks, FakeSteps(.success([]))) == "2 ")
    }
}
