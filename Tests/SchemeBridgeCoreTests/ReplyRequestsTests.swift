import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// ``ReplyRequests`` over a port that records what the bus would see: a request's object comes
/// and goes with it, its answer reaches its caller once and never before the reply naming it, only
/// its handler may answer, and its timeout, its handler's end, its caller's `Close` or leaving end it.
@Suite struct ReplyRequestsTests {
    struct Answer: RequestResponse, Equatable {
        var code: UInt32
        var ending: RequestEnding?
        var target: String?
        init(code: UInt32) { self.code = code }
        init(ending: RequestEnding) { (code, self.ending) = (2, ending) }
        mutating func name(target: ChooserTargetID) { if self.target == nil { self.target = target.text } }
    }

    /// The bus: objects exported, answers sent, owners and pids as told.
    final class Bus: ReplyRequestsPort {
        let closers = Mutex<[UInt64: @Sendable () -> Bool]>([:])
        let sent = Mutex<[(answer: Answer, id: UInt64, caller: String)]>([])
        let owners = Mutex<[String: String]>([:])
        let pids = Mutex<[String: Int32]>([:])
        let trips = Mutex(0)

        func export(_ id: UInt64, caller: String, close: @escaping @Sendable () -> Bool) { closers.withLock { $0[id] = close } }
        func unexport(_ id: UInt64) { closers.withLock { _ = $0.removeValue(forKey: id) } }
        func send(_ response: Answer, id: UInt64, to caller: String) { sent.withLock { $0.append((response, id, caller)) } }
        func owner(of busName: String) async -> String? { owners.withLock { $0[busName] } }
        func processID(of name: String) async -> Int32? { pids.withLock { $0[name] } }
        func roundTrip() async { trips.withLock { $0 += 1 } }

        var exported: Set<UInt64> { Set(closers.withLock { $0.keys }) }
        var answers: [Answer] { sent.withLock { $0.map(\.answer) } }
    }

    @Test func anAnswerWaitsForThePublicationThenGoesToTheCallerAlone() {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let r = try! requests.begin(caller: ":1.5", handlerID: "a.desktop", timeout: .seconds(60))
        #expect(bus.exported == [r.id])
        requests.complete(r.id, Answer(code: 0))
        #expect(bus.answers.isEmpty, "held until the reply naming the request is out")
        requests.publish(r.id)
        #expect(bus.sent.withLock { $0.map(\.caller) } == [":1.5"])
        #expect(bus.answers == [Answer(code: 0)])
        #expect(bus.exported.isEmpty && requests.pendingCount == 0 && requests.table.count == 0, "nothing left behind")
        requests.complete(r.id, Answer(code: 1))
        #expect(bus.answers.count == 1, "answered once")
    }

    @Test func theCallersCloseCancelsAndRunsWhatWaitsOnIt() {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let r = try! requests.begin(caller: ":1.5", handlerID: "a.desktop", timeout: .seconds(60))
        requests.publish(r.id)
        let gaveUp = Mutex(false)
        requests.whenCallerGivesUp(r.id) { gaveUp.withLock { $0 = true } }
        let close = bus.closers.withLock { $0[r.id] }!
        #expect(close())
        #expect(gaveUp.withLock { $0 })
        #expect(bus.answers == [Answer(code: 1)])
        #expect(!close(), "a second Close finds no request")
    }

    @Test func aTimeoutFailsTheRequest() async {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let r = try! requests.begin(caller: ":1.5", handlerID: "a.desktop", timeout: .milliseconds(50))
        requests.publish(r.id)
        #expect(await waitUntil(timeout: .seconds(10)) { !bus.answers.isEmpty } != nil)
        #expect(bus.answers == [Answer(ending: .timedOut)])
    }

    @Test func aSharesTargetExitingZeroTookTheItemsAnOpensHandlerDidNotReply() async {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let share = try! requests.begin(caller: ":1.5", handlerID: nil, timeout: .seconds(60))
        let open = try! requests.begin(caller: ":1.5", handlerID: "a.desktop", timeout: .seconds(60))
        requests.sharing(share.id, target: "b.desktop:send")
        for r in [share, open] { requests.publish(r.id) }
        requests.handlerExited(share.id, status: 0)
        requests.handlerExited(open.id, status: 0)
        #expect(await waitUntil(timeout: .seconds(10)) { bus.answers.count == 2 } != nil)
        let byID = Dictionary(uniqueKeysWithValues: bus.sent.withLock { $0.map { ($0.id, $0.answer) } })
        var done = Answer(code: 0)
        done.target = "b.desktop:send"
        #expect(byID[share.id] == done, "a share's answer names its target")
        #expect(byID[open.id] == Answer(ending: .handlerExited(status: 0)))
        #expect(bus.trips.withLock { $0 } == 2, "what the handler sent before it ended is read first")
    }

    @Test func onlyTheHandlerMayReplyAndItsLaunchTokenIsNotHandedBack() async throws {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let r = try requests.begin(caller: ":1.5", handlerID: "a.desktop", launchTokens: ["launch-1"], timeout: .seconds(60))
        requests.publish(r.id)
        requests.started(r.id, handler: .spawned(HandlerProcess(pid: getpid())))
        bus.pids.withLock { $0 = [":1.20": getpid(), ":1.21": 1] }
        await #expect(throws: ServiceFailure.self) { try await requests.takeForReply(token: r.token, code: 3, activationToken: nil, sender: ":1.20") }
        await #expect(throws: ReplyRequests<Bus>.noSuchRequest) { try await requests.takeForReply(token: "nope", code: 0, activationToken: nil, sender: ":1.20") }
        do {
            _ = try await requests.takeForReply(token: r.token, code: 0, activationToken: nil, sender: ":1.21")
            Issue.record("a stranger answered")
        } catch {
            #expect(error.kind == .notTheHandler)
        }
        let taken = try await requests.takeForReply(token: r.token, code: 0, activationToken: "launch-1", sender: ":1.20")
        #expect(taken.request.id == r.id && !taken.keepsToken, "the token it was started with is the caller's own")
        #expect(requests.table.count == 0)
    }

    @Test func aCallerLeavingDropsItsRequestsAnActivatedHandlerLeavingFailsThem() async {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let mine = try! requests.begin(caller: ":1.5", handlerID: "a.desktop", timeout: .seconds(60))
        let served = try! requests.begin(caller: ":1.6", handlerID: "org.example.App.desktop", timeout: .seconds(60))
        for r in [mine, served] { requests.publish(r.id) }
        bus.owners.withLock { $0 = ["org.example.App": ":1.42", ":1.42": ":1.42"] }
        await requests.activated(served.id, owner: ":1.42", pid: 4242)
        let gaveUp = Mutex(false)
        requests.whenCallerGivesUp(mine.id) { gaveUp.withLock { $0 = true } }
        requests.nameLeft(":1.5")
        #expect(gaveUp.withLock { $0 } && bus.answers.isEmpty && bus.exported == [served.id], "nobody is left to tell")
        requests.nameLeft(":1.42")
        #expect(bus.answers == [Answer(ending: .handlerLeftBus)])
        #expect(bus.exported.isEmpty)
    }

    /// An activated handler gone before it was recorded ends its request: one whose name had no
    /// owner after the call, at once; one whose owner was there when the call was answered and left
    /// before the recording (its leaving told before anyone watched for it), by the look at the
    /// bus after recording — off the path of the reply naming the request.
    @Test(arguments: [nil, ":1.42"])
    func anActivatedHandlerGoneBeforeItWasRecordedEndsTheRequest(owner: String?) async throws {
        let bus = Bus()
        let requests = ReplyRequests(port: bus)
        let r = try requests.begin(caller: ":1.5", handlerID: "org.example.App.desktop", timeout: .seconds(60))
        requests.publish(r.id)
        await requests.activated(r.id, owner: owner, pid: nil)
        for _ in 0..<2_000 where bus.answers.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(bus.answers == [Answer(ending: .handlerLeftBus)])
    }
}
