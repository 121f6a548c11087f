import Synchronization
import Testing
@testable import SchemeBridgeCore

/// ``RequestOutcomes``: a request's outcome never reaches its caller before the reply that names
/// the request; a share's target is remembered; a reply waits for its handler's start.
@Suite struct RequestOutcomesTests {
    @Test func anOutcomeBeforePublicationIsHeldThenSent() {
        let outcomes = RequestOutcomes<String>()
        outcomes.track(1)
        #expect(!outcomes.sendsNow(1, "done", caller: ":1.5"), "held: the reply naming the request is not out yet")
        let held = outcomes.publish(1)
        #expect(held?.outcome == "done" && held?.caller == ":1.5")
        outcomes.track(2)
        #expect(outcomes.publish(2) == nil)
        #expect(outcomes.sendsNow(2, "later", caller: ":1.6"), "published: sent at once")
        #expect(!outcomes.sendsNow(3, "x", caller: ":1.7"), "an untracked request sends nothing")
        #expect(outcomes.count == 2)
        outcomes.drop(1)
        outcomes.drop(2)
        #expect(outcomes.count == 0)
    }

    @Test func aShareRemembersItsTargetUntilDropped() {
        let outcomes = RequestOutcomes<String>()
        #expect(outcomes.shareTarget(4) == nil && !outcomes.isShare(4))
        outcomes.track(4)
        outcomes.sharing(4, target: nil)
        #expect(outcomes.shareTarget(4) == nil && outcomes.isShare(4))
        outcomes.sharing(4, target: "org.example.App.desktop")
        #expect(outcomes.shareTarget(4) == "org.example.App.desktop" && outcomes.isShare(4))
        outcomes.drop(4)
        #expect(outcomes.shareTarget(4) == nil && !outcomes.isShare(4))
        // A share whose request ended while its sheet was up (its timeout, say) is told its target after: nothing is kept.
        outcomes.sharing(4, target: "org.example.App.desktop")
        #expect(outcomes.shareTarget(4) == nil && !outcomes.isShare(4), "a mark for a request no longer tracked would never be forgotten")
    }

    final class Count: Sendable {
        let value = Mutex(0)
    }

    @Test func aReplyWaitsForItsHandlersStart() async {
        let outcomes = RequestOutcomes<String>()
        await outcomes.waitForStart(1) { false }  // not waiting: returns at once
        let done = Count()
        let started = Task { await outcomes.waitForStart(2) { true }; done.value.withLock { $0 += 1 } }
        let dropped = Task { await outcomes.waitForStart(3) { true }; done.value.withLock { $0 += 1 } }
        // Woken by the start, or by the request going (repeated: a waiter may not be parked yet).
        for _ in 0..<10_000 where done.value.withLock({ $0 }) < 2 {
            outcomes.wakeStartWaiters(2)
            outcomes.drop(3)
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(done.value.withLock { $0 } == 2)
        started.cancel()
        dropped.cancel()
    }
}
