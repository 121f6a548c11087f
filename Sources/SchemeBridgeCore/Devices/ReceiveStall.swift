/// A transfer from a device that stopped moving. KDE Connect reports each transfer it receives
/// to the KDE job tracker at once (a view, then an `update` whenever the bytes written change,
/// then `terminate`), so a receiving view left unchanged for `[Devices] ReceiveStall` seconds and
/// not ended is a transfer that stopped: the sending device went away or froze, or — KDE Connect
/// 22.12 — the receiving engine lost the end of the file and will take nothing more from that
/// device until it is restarted (docs/GUIDE.md, "When a file does not arrive"). The user is told
/// once per stop; when the view moves or ends, the notice is withdrawn.
public enum ReceiveStallRule {
    /// A receiving view as last reported, and when it last changed.
    public struct Seen: Sendable, Equatable {
        public var job: EngineJob
        public var changed: ContinuousClock.Instant

        public init(job: EngineJob, changed: ContinuousClock.Instant) { (self.job, self.changed) = (job, changed) }
    }

    /// What is due at `now`, given the views (`views`, by view id) and those told of (`told`: the
    /// view's change instant at the time): the views to tell of (receiving, not ended, unchanged
    /// for `quiet`, not told at this change), the notices to withdraw (their view changed, ended,
    /// or is gone), and when to look again (the next view to reach `quiet`; nil: only a change).
    public static func due(views: [UInt64: Seen], told: [UInt64: ContinuousClock.Instant], quiet: Duration,
                           now: ContinuousClock.Instant) -> (tell: [UInt64], withdraw: [UInt64], next: ContinuousClock.Instant?) {
        var tell: [UInt64] = [], next: ContinuousClock.Instant?
        for (id, seen) in views where seen.job.receiving && seen.job.endCode == nil && told[id] != seen.changed {
            let at = seen.changed + quiet
            if at <= now { tell.append(id) } else { next = min(next ?? at, at) }
        }
        let withdraw = told.filter { id, changed in
            guard let seen = views[id] else { return true }
            return seen.job.endCode != nil || seen.changed != changed
        }.map(\.key)
        return (tell.sorted(), withdraw.sorted(), next)
    }

    /// The notice for a stopped receiving job: its summary and body. The device's and the file's
    /// names come from the network: sanitised as ``ReceivedNotice`` shows them (no control or
    /// bidirectional-override characters, bounded) and, for a server that reads markup in the
    /// body (`markup`: its `body-markup` capability), escaped.
    public static func notice(_ job: EngineJob, quiet: Duration, markup: Bool) -> (summary: String, body: String) {
        let device = job.source.isEmpty ? "a device" : DeviceName.sanitized(job.source)
        let file = job.currentFile.isEmpty ? "" : ReceivedNotice.shown(ReceivedNotice.fileName(job.currentFile))
        let what = file.isEmpty ? "The transfer" : file
        let done = job.progress.map { ", \($0)% received" } ?? ""
        let seconds = quiet.components.seconds
        let body = "\(what) has not moved for \(seconds) s\(done). KDE Connect may take nothing more from \(device) until it is restarted."
        return ("Nothing is arriving from \(device)", markup ? ReceivedNotice.escaped(body) : body)
    }
}

/// Where ``ReceiveStallRule``'s notices go (the daemon: `org.freedesktop.Notifications`).
public protocol ReceiveStallPort: Sendable {
    /// Whether the notification server reads markup in a notice's body.
    func bodyMarkup() async -> Bool
    /// Shows a notice; its id, nil when no notification server answers.
    func show(summary: String, body: String) async -> UInt32?
    /// Withdraws notice `id`.
    func withdraw(_ id: UInt32) async
}
