import DBusTestSupport
import Glibc
import Synchronization
import Testing
@testable import DBus

/// `Connection.quietTurn()`: a task on the loop goes on once the loop has waited for the bus and
/// nothing came, or at its deadline while messages keep coming; anywhere else at once.
@Suite struct QuietTurnTests {
    /// A task on the loop that asks for the quiet turn goes on only after the loop has polled
    /// (it waited there), on the loop thread.
    @Test func aTaskOnTheLoopGoesOnAfterTheLoopWaited() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        defer { connection.close() }
        let (polled, onLoop) = await Task(executorPreference: connection.loopExecutor) { () -> (Int, Bool) in
            let before = connection.core.polls.load(ordering: .relaxed)
            await connection.quietTurn()
            let loop = connection.core.loopThread.load(ordering: .relaxed) == UInt(pthread_self())
            return (connection.core.polls.load(ordering: .relaxed) - before, loop)
        }.value
        #expect(polled >= 1, "went on without the loop having waited")
        #expect(onLoop)
    }

    /// Off the loop thread there is no turn to wait for: it returns at once.
    @Test func offTheLoopItReturnsAtOnce() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        await connection.quietTurn()
        connection.close()
        // And once the loop has ended.
        await connection.quietTurn()
    }

    /// How many times a waiter went on.
    final class Went: Sendable {
        let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// A waiter whose continuation the test holds: the continuation, its task, how often it went on.
    static func waiter() async -> (UnsafeContinuation<Void, Never>, Task<Void, Never>, Went) {
        let box = Mutex<UnsafeContinuation<Void, Never>?>(nil)
        let went = Went()
        let task = Task {
            await withUnsafeContinuation { c in box.withLock { $0 = c } }
            went.count.add(1, ordering: .relaxed)
        }
        while box.withLock({ $0 == nil }) { await Task.yield() }
        return (box.withLock { $0! }, task, went)
    }

    /// The rules a waiter goes by, turn by turn (times given: no clock is raced).
    @Test func aWaiterGoesWhenThePollFoundNothingOrAtItsDeadline() async throws {
        let t0: Int64 = 5_000_000_000
        var turns = QuietTurns()
        let (c, task, went) = await Self.waiter()
        turns.add(c, now: t0)
        // A poll's timeout is cut to the deadline (in ms, rounded up), and a busy loop's 0 stays 0.
        let latest = QuietTurns.latest, ms = Int32(latest / 1_000_000)
        #expect(latest > 4_000_000)  // past the kernel's next tick (250 Hz): no timer programmed for it
        #expect(turns.timeout(-1, now: t0) == ms)
        #expect(turns.timeout(60_000, now: t0) == ms)
        #expect(turns.timeout(5, now: t0) == 5)
        #expect(turns.timeout(-1, now: t0 + latest - 1) == 1)
        #expect(turns.timeout(-1, now: t0 + latest) == 0)
        #expect(turns.timeout(0, now: t0) == 0)
        // A busy turn (no wait), or a wait that a message ended, before the deadline: not quiet.
        turns.afterPoll(timeout: 0, ready: 0, now: t0 + 10)
        turns.afterPoll(timeout: 1, ready: 1, now: t0 + 20)
        #expect(!turns.isEmpty)
        #expect(went.value == 0)
        // A wait that ran out with nothing ready: quiet.
        turns.afterPoll(timeout: 1, ready: 0, now: t0 + 30)
        #expect(turns.isEmpty)
        await task.value
        #expect(went.value == 1)

        // Messages keep coming: the waiters go once the first one's deadline has passed.
        let (c2, task2, went2) = await Self.waiter()
        let (c3, task3, went3) = await Self.waiter()
        turns.add(c2, now: t0 + 100)
        turns.add(c3, now: t0 + latest - 100_000)
        turns.afterPoll(timeout: 1, ready: 1, now: t0 + 100 + latest - 1)
        #expect(!turns.isEmpty)
        turns.afterPoll(timeout: 0, ready: 1, now: t0 + 100 + latest)
        #expect(turns.isEmpty)
        await task2.value
        await task3.value
        #expect(went2.value == 1 && went3.value == 1)
    }
}
