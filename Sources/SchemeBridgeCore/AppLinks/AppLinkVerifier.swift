import Glibc
import LinuxSystem
import Synchronization

/// Runs verification in the background (issue 41): the hosts whose files are missing or expired
/// are fetched one at a time on a thread of its own (`sb-applinks`, started while there is work),
/// never on the path of an open. Rate-limited: a record counts until it expires (the file's
/// `max-age`, 5 minutes at least), a failure waits 1, 2, 4… minutes before the next try, and a
/// host asked for again within ``minimumInterval`` seconds of its last fetch gets that answer.
public final class AppLinkVerifier: Sendable {
    /// The seconds within which a host is not fetched again on request.
    public static let minimumInterval: Int64 = 5

    public let links: AppLinks
    private let fetcher: AppLinkFetcher
    private let now: @Sendable () -> Int64
    private let work = Mutex(Work())

    private struct Work {
        var pending: [String] = []
        var waiters: [String: [CheckedContinuation<AppLinkRecord, Never>]] = [:]
        var running = false
        /// The host being fetched.
        var current: String?
        var fetches = 0
    }

    public init(links: AppLinks, fetcher: AppLinkFetcher = AppLinkFetcher(), now: @escaping @Sendable () -> Int64 = { Int64(Glibc.time(nil)) }) {
        self.links = links
        self.fetcher = fetcher
        self.now = now
        // Hosts an open found claimed but not held are queued here (``AppLinks/linkNotHeld(_:)``).
        links.onUnverifiedClaim { [weak self] hosts in self?.queue(hosts) }
    }

    /// Queues `hosts` (normalised) for fetching in the background; never waits.
    public func queue(_ hosts: [String]) { enqueue(hosts) }

    /// How many fetches were made (for tests and `links list`).
    public var fetchCount: Int { work.withLock { $0.fetches } }

    /// Queues every host to verify whose record is missing or expired; returns them.
    @discardableResult
    public func refresh() -> [String] {
        let due = links.due(links.hostsToVerify())
        enqueue(due)
        return due
    }

    /// Fetches `host` (normalised) now, unless it was fetched within ``minimumInterval`` seconds
    /// or is being fetched (then that answer), and returns the record.
    public func verify(_ host: String) async -> AppLinkRecord {
        if let r = links.record(host), now() - r.checked < Self.minimumInterval, r.checked <= now() { return r }
        return await withCheckedContinuation { c in
            work.withLock { $0.waiters[host, default: []].append(c) }
            enqueue([host])
        }
    }

    private func enqueue(_ hosts: [String]) {
        let start: Bool = work.withLock { w in
            for h in hosts where !w.pending.contains(h) && w.current != h { w.pending.append(h) }
            guard !w.running, !w.pending.isEmpty else { return false }
            w.running = true
            return true
        }
        guard start else { return }
        let started = OSThread.start(name: "sb-applinks") { [self] in run() }
        if let started { started.detach() } else {
            // No thread: answer the waiters with what is known rather than never.
            let waiting = work.withLock { w -> [(String, [CheckedContinuation<AppLinkRecord, Never>])] in
                w.running = false
                defer { w.waiters = [:]; w.pending = [] }
                return Array(w.waiters)
            }
            for (h, cs) in waiting {
                let r = links.record(h) ?? AppLinkRecord(host: h, checked: now(), expires: now(), apps: [], failure: "no thread to fetch on",
                                                          source: "https://" + h + AssetLinks.path, address: "", status: 0)
                cs.forEach { $0.resume(returning: r) }
            }
        }
    }

    private func run() {
        while true {
            let host: String? = work.withLock { w in
                w.current = nil
                guard !w.pending.isEmpty else { w.running = false; return nil }
                w.fetches += 1
                w.current = w.pending.removeFirst()
                return w.current
            }
            guard let host else { return }
            let record = links.fetch(host, with: fetcher)
            let waiting = work.withLock { w in
                w.current = nil
                return w.waiters.removeValue(forKey: host) ?? []
            }
            waiting.forEach { $0.resume(returning: record) }
        }
    }
}
