import DBusTestSupport
import Synchronization
import Testing
@testable import DBus

/// The loop thread's job queue: the eventfd is written only to wake a loop that waits in `poll`
/// — a job queued while the loop is awake costs no write, `poll` and read — and no job waits
/// for a wake that never comes.
@Suite struct LoopQueueTests {
    final class Ran: Sendable { let count = Mutex(0) }

    /// A task on the loop thread that yields queues itself again while the loop runs it (as every
    /// task resumed there does): taken on the same turn of the loop, with no wake.
    @Test func aJobQueuedWhileTheLoopRunsWakesNothing() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        defer { connection.close() }
        let before = connection.core.queue.wakes
        let turns = await Task(executorPreference: connection.loopExecutor) { () -> Int in
            var turns = 0
            for _ in 0..<200 {
                await Task.yield()
                turns += 1
            }
            return turns
        }.value
        #expect(turns == 200)
        // The task's start, queued from the test's thread, may wake the loop; its 200 yields on
        // the loop thread do not.
        #expect(connection.core.queue.wakes - before <= 2, "\(connection.core.queue.wakes - before) wakes")
    }

    /// Jobs queued by the loop's own turn (a task on the loop that yields) run without a
    /// zero-timeout `poll` of the bus before each: up to ``ConnectionCore/turnsWithoutPoll`` turns
    /// in a row (with the old rule, one poll per turn: 200 or more).
    @Test func jobsQueuedByTheLoopRunWithoutAPollEachTurn() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        defer { connection.close() }
        let before = connection.core.polls.load(ordering: .relaxed)
        await Task(executorPreference: connection.loopExecutor) {
            for _ in 0..<200 { await Task.yield() }
        }.value
        let polls = connection.core.polls.load(ordering: .relaxed) - before
        #expect(polls < 100, "\(polls) polls")
    }

    /// A task on the loop that never waits for anything but its own turns does not keep the bus
    /// from being read: a call made meanwhile is answered while it still runs.
    @Test func aBusyLoopStillReadsTheBus() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        defer { connection.close() }
        let answered = Atomic<Bool>(false)
        let spinner = Task(executorPreference: connection.loopExecutor) { () -> Int in
            var turns = 0
            while !answered.load(ordering: .relaxed) && turns < 5_000_000 {
                await Task.yield()
                turns += 1
            }
            return turns
        }
        let owner = try await BusDriver(connection).nameOwner("org.freedesktop.DBus", timeout: .seconds(60))
        answered.store(true, ordering: .relaxed)
        #expect(owner == "org.freedesktop.DBus")
        #expect(await spinner.value < 5_000_000, "the reply was read while the task still ran")
    }

    /// Jobs queued from many threads at once, while the loop waits and while it runs the others,
    /// all run: none is left waiting for a wake.
    @Test func jobsFromManyThreadsAllRun() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        defer { connection.close() }
        let ran = Ran()
        for _ in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        await Task(executorPreference: connection.loopExecutor) { ran.count.withLock { $0 += 1 } }.value
                    }
                }
            }
        }
        #expect(ran.count.withLock { $0 } == 2000)
        // And the connection still answers the bus.
        #expect(try await BusDriver(connection).nameOwner("org.freedesktop.DBus", timeout: .seconds(60)) == "org.freedesktop.DBus")
    }
}
