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

    /// `log` hears, in words, which hosts are queued and why.
    public init(links: AppLinks, fetcher: AppLinkFetcher = AppLinkFetcher(), now: @escaping @Sendable () -> Int64 = { Int64(Glibc.time(nil)) },
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.links = links
        self.fetcher = fetcher
        self.now = now
        self.log = log
        // Hosts an open found claimed but not held are queued here (``AppLinks/linkNotHeld(_:)``).
        links.onUnverifiedClaim { [weak self] hosts in
            self?.log("verifying app links of \(hosts.joined(separator: ", ")) (a link their apps claim was opened or resolved)")
            self?.queue(hosts)
        }
    }

    private let log: @Sendable (String) -> Void

    /// Keeps the records fresh until `changes` ends (``Registry/changes(appLinks:)``: an entry
    /// that declares app links appeared, changed or went): queues what is due at once, at each
    /// change, and when the earliest record of a host to verify expires (looked at again at
    /// least every ``recheckInterval`` seconds). Never waits for a fetch.
    public func keepFresh(following changes: AsyncStream<Set<String>>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                links.readFlathubEvidence()
                refresh(because: "start")
                for await _ in changes {
                    links.readFlathubEvidence()
                    refresh(because: "an entry changed")
                }
            }
            group.addTask { [self] in
                while !Task.isCancelled {
                    let next = links.nextExpiry(links.hostsToVerify()).map { max($0 - now(), 5) } ?? Self.recheckInterval
                    try? await Task.sleep(for: .seconds(min(next, Self.recheckInterval)))
                    if Task.isCancelled { return }
                    refresh(because: "a record expired")
                }
            }
            await group.next()  // the registry closed: stop looking at expiries too
            group.cancelAll()
        }
    }

    /// The longest ``keepFresh(following:)`` goes without looking at the records' expiry: a
    /// record fetched meanwhile (a failure's retry is due after a minute) is seen within it.
    public static let recheckInterval: Int64 = 300

    private func refresh(because why: String) {
        let due = refresh()
        if !due.isEmpty { log("verifying app links of \(due.joined(separator: ", ")) (\(why))") }
    }

    /// ``verify(_:)`` for a host as a caller wrote it: `invalidArgument` when it is no host
    /// name, `invalidHandler` when no installed app declares it (only claimed hosts are fetched).
    public func verify(named text: String) async throws(OpenFailure) -> AppLinkRecord {
        guard let host = AppLinkHost.normalized(text) else {
            throw OpenFailure(.invalidArgument, "'\(text.prefix(80))' is not a host name")
        }
        guard links.isDeclared(host) else {
            throw OpenFailure(.invalidHandler, "no installed app declares \(host) in X-SchemeBridge-AppLinks=: nothing to verify")
        }
        return await verify(host)
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
