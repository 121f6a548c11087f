import Testing
@testable import SchemeBridgeCore

/// When the Inboxes are swept: at start, then at most once a minute, and at least once a minute
/// while documents keep coming.
@Suite struct InboxSweepScheduleTests {
    @Test func sweptFirstThenNotWithinAMinuteOfTheLastSweep() {
        let schedule = InboxSweepSchedule()
        let start: Int64 = 1_800_000_000
        #expect(schedule.isDue(now: start), "the first call sweeps")
        #expect(!schedule.isDue(now: start))
        #expect(!schedule.isDue(now: start + InboxSweepSchedule.interval))
        #expect(schedule.isDue(now: start + 2 * InboxSweepSchedule.interval + 1))
        #expect(!schedule.isDue(now: start + 2 * InboxSweepSchedule.interval + 2))
    }

    /// A document every 59 s never starved the sweep before (each open moved the clock).
    @Test func documentsComingEvery59SecondsStillGetASweepAMinute() {
        let schedule = InboxSweepSchedule()
        let start: Int64 = 1_800_000_000
        #expect(schedule.isDue(now: start))
        let sweeps = (1...10).filter { schedule.isDue(now: start + Int64($0) * 59) }
        #expect(sweeps == [2, 4, 6, 8, 10], "\(sweeps)")
    }
}
