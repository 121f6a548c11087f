import Testing
@testable import SchemeBridgeCore

/// The per-caller limits on what blocks: choosers open at once (a person answers each) and jobs
/// on callers' descriptors (a FUSE file may never answer).
@Suite struct CallerLimitRuleTests {
    @Test func oneChooserPerAppFourInAll() {
        let slots = ChooserSlots()
        let editor = ChooserSlots.key(for: Caller(busName: ":1.1", id: "org.example.Editor"))
        #expect(editor == "org.example.Editor")
        #expect(slots.take(editor))
        #expect(!slots.take(editor), "a second chooser for the same app waits for the first")
        // The unidentified share one slot.
        let nobody = ChooserSlots.key(for: Caller(busName: ":1.2"))
        #expect(nobody == "")
        #expect(slots.take(nobody))
        #expect(!slots.take(ChooserSlots.key(for: Caller(busName: ":1.3"))))
        #expect(slots.take("org.example.Viewer"))
        #expect(slots.take("org.example.Mail"))
        #expect(slots.openCount == ChooserSlots.total)
        #expect(!slots.take("org.example.Fifth"), "four choosers in all")
        // Giving one back frees its app's slot and one of the total.
        slots.give(editor)
        #expect(slots.openCount == 3)
        #expect(slots.take("org.example.Fifth"))
        #expect(!slots.take(editor))
    }

    @Test func callersKnownOnlyByPathShareTwoSlots() {
        let slots = ChooserSlots()
        // A hard link is a new path: the paths together get two.
        #expect(slots.take("/usr/bin/prog"))
        #expect(!slots.take("/usr/bin/prog"))
        #expect(slots.take("/tmp/link-1"))
        #expect(!slots.take("/tmp/link-2"), "the third path waits")
        #expect(slots.take("org.example.Editor"), "apps with an id are not held back by paths")
        slots.give("/tmp/link-1")
        #expect(slots.take("/tmp/link-2"))
        slots.give("/usr/bin/prog")
        slots.give("/tmp/link-2")
        slots.give("org.example.Editor")
        #expect(slots.openCount == 0)
    }

    @Test func twoDescriptorJobsPerCaller() {
        let jobs = DescriptorJobs()
        #expect(DescriptorJobs.perCaller == 2)
        #expect(jobs.take("org.example.Editor"))
        #expect(jobs.take("org.example.Editor"))
        #expect(!jobs.take("org.example.Editor"), "a third job waits for one of the two")
        #expect(jobs.take(":1.7"), "another caller is not held back")
        #expect(jobs.count("org.example.Editor") == 2)
        jobs.give("org.example.Editor")
        #expect(jobs.take("org.example.Editor"))
        jobs.give("org.example.Editor")
        jobs.give("org.example.Editor")
        #expect(jobs.count("org.example.Editor") == 0)
    }

    @Test func keyedCountsForgetKeysBackAtZero() {
        var counts = KeyedCounts()
        counts.add("/a")
        counts.add("/a")
        counts.add("b")
        #expect(counts["/a"] == 2 && counts.total == 3 && counts.total(matching: { $0.hasPrefix("/") }) == 2)
        counts.remove("/a")
        counts.remove("/a")
        counts.remove("b")
        #expect(counts.total == 0 && counts["/a"] == 0)
        counts.remove("never")  // never below zero
        #expect(counts["never"] == 0 && counts.total == 0)
    }
}
