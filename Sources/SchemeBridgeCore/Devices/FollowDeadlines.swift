/// The deadlines of every device transfer followed at once (each follow's grace for a job view
/// and its `[Devices] Timeout`), watched by one sleeper instead of a timer per share: a follow
/// adds its deadlines and is woken at each; the sleeper sleeps until the first. Adding arms the
/// sleeper only when none sleeps or the new deadline comes before the one it sleeps until — the
/// grace is the same for every share, so a share made while others are followed arms no timer.
public struct FollowDeadlines: Sendable {
    /// The deadlines, soonest first.
    private var entries: [(at: ContinuousClock.Instant, id: UInt64)] = []
    /// When the sleeper wakes next; nil when none sleeps.
    public private(set) var armed: ContinuousClock.Instant?

    /// No deadlines, no sleeper.
    public init() {}

    /// The deadlines not yet passed.
    public var count: Int { entries.count }

    /// Adds follow `id`'s deadlines. True when the sleeper must be started (again) to wake at
    /// ``armed``: none sleeps, or it sleeps past the first of them.
    public mutating func add(_ id: UInt64, at instants: [ContinuousClock.Instant]) -> Bool {
        for at in instants {
            let index = entries.lastIndex { $0.at <= at }.map { $0 + 1 } ?? 0
            entries.insert((at, id), at: index)
        }
        guard let first = instants.min(), armed.map({ first < $0 }) ?? true else { return false }
        armed = first
        return true
    }

    /// Removes follow `id`'s deadlines (it ended). The sleeper keeps its time: it finds nothing
    /// due then and sleeps until what is left.
    public mutating func remove(_ id: UInt64) {
        entries.removeAll { $0.id == id }
    }

    /// Takes the deadlines passed at `now`: the follows to wake (each once), and when to wake
    /// next — nil when none is left (the sleeper ends, and the next ``add(_:at:)`` arms one).
    public mutating func due(at now: ContinuousClock.Instant) -> (wake: [UInt64], next: ContinuousClock.Instant?) {
        let passed = entries.prefix { $0.at <= now }
        entries.removeFirst(passed.count)
        var wake: [UInt64] = []
        for entry in passed where !wake.contains(entry.id) { wake.append(entry.id) }
        armed = entries.first?.at
        return (wake, armed)
    }
}
