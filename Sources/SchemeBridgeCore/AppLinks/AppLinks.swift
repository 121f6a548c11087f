import Glibc
import Synchronization

/// Verified app links (issue 41): which app holds an https link, from what is known — the
/// entries' claims, the hosts' fetched files (cached with their max-age), the user's choices.
/// ``resolve(_:)`` never touches the network: ``AppLinkVerifier`` fetches in the background.
///
/// The rule: the user's choice for the host (`selected`) if that app still claims the link's
/// path; else the first app, by desktop id, whose entry claims the link, is trusted
/// (``AppLinkTrust``) and is named by the file of the host its pattern verifies at (`verified`);
/// else none (the browser).
public final class AppLinks: Sendable {
    /// The registry whose entries claim hosts.
    public let registry: Registry
    private let config: @Sendable () -> AppLinkConfig
    /// `$XDG_CACHE_HOME/schemebridge/applinks`.
    public let cachePath: String
    /// `$XDG_CONFIG_HOME/schemebridge/applinks`.
    public let selectionsPath: String
    private let now: @Sendable () -> Int64
    private let state = Mutex(State())
    private let demand = Mutex(Demand())

    /// Hosts an open found claimed but held by no app, and who verifies them.
    private struct Demand {
        var verifier: (@Sendable ([String]) -> Void)?
        /// When each host was last handed over (seconds since the epoch).
        var asked: [String: Int64] = [:]
    }

    /// The seconds within which an open does not ask again for the same host (``linkNotHeld(_:)``).
    public static let demandInterval: Int64 = 60

    private struct State {
        var records: [String: AppLinkRecord] = [:]
        var selections: [String: String] = [:]
        var loaded = false
        var selectionsSignature = FileSignature()
        /// When the selections file was last looked at (``Self/recheckMilliseconds``).
        var selectionsChecked: Int64 = -1_000_000
        /// Flathub's website verifications (``FlathubVerification``), by app id, and the
        /// signatures of the files they were read from.
        var flathub: [String: FlathubVerification] = [:]
        var flathubFiles: [String: FileSignature] = [:]
    }

    /// `config` is read at each fetch (the policy file may change); `now` is the clock (seconds).
    public init(registry: Registry, environment: [String: String], config: @escaping @Sendable () -> AppLinkConfig,
                now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.registry = registry
        self.config = config
        self.cachePath = AppLinkCacheFile.path(environment: environment)
        self.selectionsPath = AppLinkSelectionFile.path(directories: registry.directories)
        self.now = now
    }

    /// The current `[AppLinks]` settings.
    public var settings: AppLinkConfig { config() }

    // MARK: deciding

    /// Which app holds `url`, from what is known now (no network, no waiting).
    public func resolve(_ url: SchemeURL) -> AppLinkResolution {
        guard let link = AppLinkURL(url) else {
            return AppLinkResolution(host: "", app: nil, state: .none, record: nil, claimants: [],
                                     reason: "only https links on the default port are app links")
        }
        return resolve(host: link.host, path: link.path)
    }

    /// ``resolve(_:)`` for a host (normalised) and path.
    public func resolve(host: String, path: String) -> AppLinkResolution {
        let (records, selections) = snapshot()
        let claims = registry.appLinkEntries().compactMap { e -> (AppLinkEntry, AppLinkHostPattern)? in
            guard let pattern = e.declaration.pattern(covering: host), e.declaration.admits(path: path) else { return nil }
            return (e, pattern)
        }
        let claimants = claims.map(\.0.id)
        if let chosen = selections[host].map({ DesktopID(fileName: $0) }) {
            if claimants.contains(chosen) {
                let pattern = claims.first { $0.0.id == chosen }!.1
                return AppLinkResolution(host: host, app: chosen, state: .selected, record: records[pattern.verificationHost], claimants: claimants,
                                         reason: "chosen by the user for \(host)")
            }
        }
        var firstRecord: AppLinkRecord?
        var untrustedEndorsed: DesktopID?
        for (e, pattern) in claims {
            let record = records[pattern.verificationHost]
            if firstRecord == nil { firstRecord = record }
            guard let (evidence, reason) = endorsement(e, pattern, record) else { continue }
            guard e.trusted else { untrustedEndorsed = untrustedEndorsed ?? e.id; continue }
            return AppLinkResolution(host: host, app: e.id, state: .verified, record: evidence, claimants: claimants, reason: reason)
        }
        let reason: String
        if claims.isEmpty {
            reason = selections[host] != nil ? "the app chosen for \(host) does not claim this path" : "no installed app claims \(host)\(path == "/" ? "" : path)"
        } else if let id = untrustedEndorsed {
            reason = "\(id) is named by the host, but its entry is one the user's programs can write: never verified (choose it with `schemebridge links set \(host) \(id)`)"
        } else if let r = firstRecord {
            reason = r.failure.map { "\(r.source): \($0)" } ?? "\(r.source) names none of \(claims.map(\.0.id.appID).joined(separator: ", "))"
        } else {
            reason = "not verified yet"
        }
        return AppLinkResolution(host: host, app: nil, state: .none, record: firstRecord, claimants: claimants, reason: reason)
    }

    // MARK: what to fetch

    /// The hosts whose files endorse trusted entries' claims (each pattern's verification host),
    /// sorted: what the background verifies. Untrusted entries are never verified, so their
    /// hosts are fetched only when asked (``isDeclared(_:)``).
    public func hostsToVerify() -> [String] {
        Set(registry.appLinkEntries().filter(\.trusted).flatMap { $0.declaration.hosts.map(\.verificationHost) }).sorted()
    }

    /// Whether some installed entry declares a pattern that verifies at `host`.
    public func isDeclared(_ host: String) -> Bool {
        registry.appLinkEntries().contains { $0.declaration.hosts.contains { $0.verificationHost == host } }
    }

    /// Of `hosts`, those without a record or whose record has expired, at `now`.
    public func due(_ hosts: [String]) -> [String] {
        let t = now()
        let (records, _) = snapshot()
        return hosts.filter { records[$0].map { $0.expires <= t } ?? true }
    }

    /// The earliest expiry among the records of `hosts` (nil: none recorded).
    public func nextExpiry(_ hosts: [String]) -> Int64? {
        let (records, _) = snapshot()
        return hosts.compactMap { records[$0]?.expires }.min()
    }

    /// The record of `host`, if fetched.
    public func record(_ host: String) -> AppLinkRecord? { snapshot().records[host] }

    /// Whether `e`'s claim `pattern` is endorsed now: the file of the host it verifies at names
    /// the app (``AppLinkRecord/endorses(_:at:)``), or Flathub's data does (``FlathubVerification``).
    /// Trust in the entry is not part of it (``AppLinkEntry/trusted``).
    public func endorses(_ e: AppLinkEntry, _ pattern: AppLinkHostPattern) -> Bool {
        endorsement(e, pattern, record(pattern.verificationHost)) != nil
    }

    /// The evidence that endorses `e`'s claim `pattern`, and in words, or nil.
    func endorsement(_ e: AppLinkEntry, _ pattern: AppLinkHostPattern, _ record: AppLinkRecord?) -> (AppLinkRecord, String)? {
        if let record, record.endorses(e.id, at: now()) { return (record, "\(record.source) names \(e.id.appID)") }
        guard let app = e.entry.flatpakAppID, app.desktopID == e.id, case let id = app.text, FlathubVerification.host(ofAppID: app) == pattern.verificationHost,
              let installation = FlathubVerification.installation(ofApplicationsDirectory: e.entry.applicationsDirectory),
              let v = state.withLock({ $0.flathub[id] }), v.website == pattern.verificationHost,
              v.file.hasPrefix(installation + "/appstream/") else { return nil }
        let evidence = AppLinkRecord(host: pattern.verificationHost, checked: v.timestamp, expires: Int64.max, apps: [id], failure: nil,
                                     source: FlathubVerification.sourcePrefix + v.remote + ":" + v.file, address: "", status: 0)
        return (evidence, "Flathub's data (remote \(v.remote)) says \(v.website) verified \(id)")
    }

    /// Reads Flathub's website verifications from the AppStream data of the installations whose
    /// exported, trusted entries claim hosts (a file is read again only when it changed). Reads
    /// files, possibly large: call it off the path of an open (the service does it in the
    /// background, when it starts and when an entry changes).
    public func readFlathubEvidence() {
        var installations: Set<String> = []
        for e in registry.appLinkEntries() where e.trusted && e.entry.flatpakAppID?.desktopID == e.id {
            if let i = FlathubVerification.installation(ofApplicationsDirectory: e.entry.applicationsDirectory) { installations.insert(i) }
        }
        let files = installations.sorted().flatMap(FlathubVerification.files(installation:))
        let signatures = Dictionary(files.map { ($0.path, FileSystem.info($0.path).signature) }, uniquingKeysWith: { a, _ in a })
        guard state.withLock({ $0.flathubFiles != signatures }) else { return }
        var found: [String: FlathubVerification] = [:]
        // `active` is flatpak's symlink to the deployed commit: the file it reaches, and every
        // directory above that, must be root's alone.
        for f in files {
            guard let real = FileSystem.realPath(f.path), SystemPath.isProtected(real),
                  let bytes = try? FileSystem.readFile(real, limit: FlathubVerification.maximumBytes) else { continue }
            found.merge(FlathubVerification.parse(bytes, remote: f.remote, file: f.path)) { a, _ in a }
        }
        state.withLock { s in
            s.flathub = found
            s.flathubFiles = signatures
        }
    }

    // MARK: verifying what opens find

    /// Who verifies the hosts that opens find claimed but not held (``linkNotHeld(_:)``): the
    /// service's ``AppLinkVerifier`` (it sets itself when made). It must only queue them.
    public func onUnverifiedClaim(_ verifier: @escaping @Sendable ([String]) -> Void) {
        demand.withLock { $0.verifier = verifier }
    }

    /// A link was decided (opened or resolved) with no app holding it while apps claim it: the
    /// hosts where the claims of trusted claimants are verified (untrusted entries are never
    /// verified), whose records are missing or expired, are handed to the verifier — each at
    /// most once in ``demandInterval`` seconds, and only queued: the open goes on to the browser
    /// without waiting. A failure's record waits out its own retry delay (it has not expired).
    /// Returns the hosts handed over.
    @discardableResult
    public func linkNotHeld(_ resolution: AppLinkResolution) -> [String] {
        guard resolution.app == nil, !resolution.claimants.isEmpty else { return [] }
        var hosts: [String] = []
        for e in registry.appLinkEntries() where e.trusted && resolution.claimants.contains(e.id) {
            if let pattern = e.declaration.pattern(covering: resolution.host), !hosts.contains(pattern.verificationHost) {
                hosts.append(pattern.verificationHost)
            }
        }
        let t = now()
        let due = self.due(hosts)
        let (verifier, asked): ((@Sendable ([String]) -> Void)?, [String]) = demand.withLock { d in
            let fresh = due.filter { h in d.asked[h].map { t - $0 >= Self.demandInterval || $0 > t } ?? true }
            guard d.verifier != nil, !fresh.isEmpty else { return (nil, []) }
            for h in fresh { d.asked[h] = t }
            if d.asked.count > 4096 { d.asked = d.asked.filter { t - $0.value < Self.demandInterval } }
            return (d.verifier, fresh)
        }
        guard let verifier else { return [] }
        verifier(asked)
        return asked
    }

    /// Every record, by host.
    public func records() -> [AppLinkRecord] { snapshot().records.values.sorted { $0.host < $1.host } }

    /// Fetches `host`'s file now (blocking: call it on a thread of its own) and keeps the
    /// result; a failure after earlier failures waits longer before the next try.
    @discardableResult
    public func fetch(_ host: String, with fetcher: AppLinkFetcher = AppLinkFetcher()) -> AppLinkRecord {
        var record = fetcher.fetch(host: host, config: config(), now: now())
        store(&record)
        return record
    }

    /// Keeps `record` (counting failures in a row) and saves the cache.
    public func store(_ record: inout AppLinkRecord) {
        let bytes: [UInt8] = state.withLock { s in
            loadLocked(&s)
            if record.failure != nil, let old = s.records[record.host], old.failure != nil {
                record.failures = old.failures + 1
                record.expires = record.checked + AppLinkRecord.retryDelay(failures: record.failures)
            }
            // A transient failure says nothing about the file: an earlier endorsement stands
            // until its max-age ends (tried again meanwhile); any other answer replaces it.
            if record.failure != nil, record.transient, let old = s.records[record.host], !old.apps.isEmpty, old.endorsedUntil > record.checked {
                record.apps = old.apps
                record.endorsedUntil = old.endorsedUntil
                record.expires = min(record.expires, old.endorsedUntil)
            }
            s.records[record.host] = record
            return AppLinkCacheFile.encode(s.records)
        }
        do {
            try FileSystem.makeDirectories(FileSystem.dirname(cachePath))
            try FileSystem.writeAtomically(bytes, to: cachePath, defaultMode: 0o600)
        } catch {}
    }

    // MARK: the user's choices

    /// The user's choices, host → desktop id.
    public func selections() -> [String: DesktopID] { snapshot().selections.mapValues { DesktopID(fileName: $0) } }

    /// Chooses `desktopID` for `host` (nil: forgets the choice). The app must claim the host.
    public func select(_ app: DesktopID?, for hostText: String) throws(OpenFailure) {
        let desktopID = app?.fileName
        guard let host = AppLinkHost.normalized(hostText) else {
            throw OpenFailure(.invalidArgument, "'\(hostText.prefix(80))' is not a host name")
        }
        if let id = desktopID {
            guard let e = registry.appLinkEntries().first(where: { $0.id.fileName == id }) else {
                throw OpenFailure(.invalidHandler, "\(id.prefix(200)) is not an installed app that declares app links (X-SchemeBridge-AppLinks=)")
            }
            guard e.declaration.pattern(covering: host) != nil else {
                throw OpenFailure(.invalidHandler, "\(id) does not claim \(host) (its X-SchemeBridge-AppLinks= is \(e.declaration.hosts.map(\.description).joined(separator: ";")))")
            }
        }
        let bytes: [UInt8] = state.withLock { s in
            loadLocked(&s)
            s.selections[host] = desktopID
            return AppLinkSelectionFile.encode(s.selections)
        }
        do {
            try FileSystem.makeDirectories(FileSystem.dirname(selectionsPath))
            try FileSystem.writeAtomically(bytes, to: selectionsPath, defaultMode: 0o644)
        } catch {
            throw OpenFailure(.failed, "cannot save the choice: \(error.message)")
        }
        state.withLock { $0.selectionsSignature = FileSystem.info(selectionsPath).signature }
    }

    // MARK: files

    /// How often the selections file is looked at for an edit by hand, at most (milliseconds):
    /// a `ResolveLink` or an open does not `stat` it each time. Choices made through the service
    /// (``select(_:for:)``) count at once.
    static let recheckMilliseconds: Int64 = 200

    private func snapshot() -> (records: [String: AppLinkRecord], selections: [String: String]) {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        let t = Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        return state.withLock { s in
            loadLocked(&s)
            guard t - s.selectionsChecked >= Self.recheckMilliseconds || t < s.selectionsChecked else { return (s.records, s.selections) }
            s.selectionsChecked = t
            let sig = FileSystem.info(selectionsPath).signature
            if sig != s.selectionsSignature {
                s.selectionsSignature = sig
                s.selections = (try? FileSystem.readFile(selectionsPath)).map { AppLinkSelectionFile.decode($0, path: selectionsPath) } ?? [:]
            }
            return (s.records, s.selections)
        }
    }

    private func loadLocked(_ s: inout State) {
        guard !s.loaded else { return }
        s.loaded = true
        if let bytes = try? FileSystem.readFile(cachePath) { s.records = AppLinkCacheFile.decode(bytes, path: cachePath) }
    }
}
