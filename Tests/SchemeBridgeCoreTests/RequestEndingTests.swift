import Testing
@testable import SchemeBridgeCore

/// How a request ends when its handler exits or a party leaves the bus.
@Suite struct RequestEndingTests {
    @Test func aCallerLeavingDropsItsRequestsAndAHandlerLeavingFailsThem() throws {
        let table = RequestTable()
        let mine = try table.open(caller: ":1.5", handlerID: "a.desktop")
        let served = try table.open(caller: ":1.6", handlerID: "b.desktop")
        table.started(served.id, handler: .activated(owner: ":1.9", process: nil))
        let other = try table.open(caller: ":1.7", handlerID: "c.desktop")

        let callerLeft = table.nameLeft(":1.5")
        #expect(callerLeft.dropped.map(\.id) == [mine.id] && callerLeft.failed.isEmpty)
        let handlerLeft = table.nameLeft(":1.9")
        #expect(handlerLeft.dropped.isEmpty && handlerLeft.failed.map(\.0.id) == [served.id])
        #expect(handlerLeft.failed.first?.1 == .handlerLeftBus)
        #expect(table.request(other.id) != nil && table.count == 1)
    }

    @Test func anExitedHandlerIsNamedWithItsStatus() {
        #expect(RequestEnding.handlerExited(status: 0).message == "the handler exited without replying")
        #expect(RequestEnding.handlerExited(status: 3).message == "the handler exited with status 3 without replying")
        #expect(RequestEnding.handlerExited(status: 3).errorName == "HandlerExited")
    }

    @Test func aSharesTargetThatExitsCleanlyTookTheItems() {
        #expect(HandlerExitOutcome.of(status: 0, isShare: true) == .success)
        #expect(HandlerExitOutcome.of(status: 0, isShare: false) == .failed(.handlerExited(status: 0)))
        #expect(HandlerExitOutcome.of(status: 3, isShare: true) == .failed(.handlerExited(status: 3)))
    }

    @Test func replyCodesAndAPicksAnswer() throws {
        for code: UInt32 in 0...2 { try RequestTable.Purpose.checkReplyCode(code) }
        #expect(throws: ServiceFailure.self) { try RequestTable.Purpose.checkReplyCode(3) }
        let pick = RequestTable.Purpose.pick(try PickSubject(["image/png"]), multiple: false)
        #expect(throws: ServiceFailure.self, "a pick's success is ProvideDocuments") { try pick.checkReply(code: 0) }
        try pick.checkReply(code: 1)
        try pick.checkReply(code: 2)
        try RequestTable.Purpose.reply.checkReply(code: 0)
    }
}
