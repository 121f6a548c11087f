import Foundation
import LinuxSystem
import Testing
@testable import SchemeBridgeCore

/// A blocking-thread pool gives up a job at its deadline through one watchdog for the pool (no
/// timer task per job, issue 38): each stuck job at its own deadline, never before, however many
/// quick jobs came and went before it, and after the watchdog had ended with nothing to watch.
@Suite struct BlockingThreadPoolWatchdogTests {
    // The limit is a ceiling for a hang, not a speed bound: beside four CPU hogs and a concurrent
    // build the whole Core test process stalled ~70 s once (simple tests "passed after 71 s"), and a
    // one-minute limit failed this test although every expectation held.
    @Test(.timeLimit(.minutes(10))) func eachStuckJobIsGivenUpAtItsOwnDeadline() async throws {
        let timeout = Duration.milliseconds(400)
        let threads = BlockingThreadPool(name: "sb-test", timeout: timeout, maximumThreads: 4)
        let blocker = IdentificationTests.Blocker()
        defer { blocker.release() }
        for n in 0..<50 { #expect(await threads.run { n } == n) }
        try await Task.sleep(for: timeout * 2)  // lets the watchdog end: nothing is left to watch
        let start = ContinuousClock.now
        async let first: Int? = threads.run { blocker.wait(); return 1 }
        try await Task.sleep(for: timeout / 2)
        let second = await threads.run { blocker.wait(); return 2 }
        let secondAfter = ContinuousClock.now - start
        #expect(await first == nil && second == nil, "stuck jobs are given up")
        #expect(secondAfter >= timeout + timeout / 2, "the second job is given up at its own deadline, not the first's: \(secondAfter)")
        #expect(await threads.run { 3 } == 3, "a free thread still takes jobs")
    }
}
