import Testing
@testable import SchemeBridgeCore

/// When the Inboxes are swept: at start, then at most once a minute.
@Suite struct InboxSweepScheduleTests {
    @Test func sweptFirstThenNotWithinAMinuteOfLastAsked() {
        let schedule = InboxSweepSchedule()
        let start: Int64 = 1_800_000_000
        #expect(schedule.isDue(now: start), "the first call sweeps")
        #expect(!schedule.isDue(now: start))
        #expect(!schedule.isDue(now: start + InboxSweepSchedule.interval))
        #expect(schedule.isDue(now: start + 2 * InboxSweepSchedule.interval + 1))
        #expect(!schedule.isDue(now: start + 2 * InboxSweepSchedule.interval + 2))
    }
}
