import Testing
@testable import SchemeBridgeCore

/// The deadlines of the device transfers followed at once, watched by one sleeper
/// (``FollowDeadlines``): a share made while others are followed arms no timer, and every
/// follow is still woken at each of its own deadlines, never before.
@Suite struct FollowDeadlinesTests {
    let t0 = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    @Test func onlyADeadlineBeforeTheSleepersTimeArmsIt() {
        var d = FollowDeadlines()
        // The first follow (grace 2 s, timeout 300 s) arms the sleeper for its grace.
        let first = d.add(1, at: [at(2), at(300)])
        #expect(first && d.armed == at(2))
        // Shares made after it, with the same grace: no timer.
        let second = d.add(2, at: [at(2.1), at(300.1)]), third = d.add(3, at: [at(2.5), at(300.5)])
        #expect(!second && !third)
        #expect(d.armed == at(2) && d.count == 6)
        // A follow whose timeout comes first (a share's own shorter timeout) arms it earlier.
        let earlier = d.add(4, at: [at(3), at(1)])
        #expect(earlier && d.armed == at(1))
    }

    @Test func eachFollowIsWokenAtItsOwnDeadlinesNeverBefore() {
        var d = FollowDeadlines()
        _ = d.add(1, at: [at(2), at(300)])
        _ = d.add(2, at: [at(2.1), at(300.1)])
        _ = d.add(3, at: [at(2.1), at(2.1)])
        // Woken early (a timer may fire a little before): nothing due, the same time again.
        var (wake, next) = d.due(at: at(1.9))
        #expect(wake.isEmpty && next == at(2))
        (wake, next) = d.due(at: at(2))
        #expect(wake == [1] && next == at(2.1))
        // Two deadlines of one follow passed at once: woken once.
        (wake, next) = d.due(at: at(2.2))
        #expect(wake == [2, 3] && next == at(300))
        // A follow that ended is no longer woken; the sleeper finds nothing at its time.
        d.remove(1)
        (wake, next) = d.due(at: at(300))
        #expect(wake.isEmpty && next == at(300.1))
        (wake, next) = d.due(at: at(301))
        #expect(wake == [2] && next == nil && d.armed == nil && d.count == 0)
        // With the sleeper gone, the next follow arms a new one.
        let again = d.add(5, at: [at(303)])
        #expect(again && d.armed == at(303))
    }
}
