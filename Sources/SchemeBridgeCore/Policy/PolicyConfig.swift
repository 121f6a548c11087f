import Synchronization
import Glibc

/// The policy settings, from the key files ``PolicyStore/defaultPaths(directories:)`` names: each
/// `$XDG_CONFIG_DIRS/schemebridge/config` (system-wide), then the user's
/// `$XDG_CONFIG_HOME/schemebridge/config`, a key in a later file winning (see ``parse(_:path:over:warnings:)``).
/// Every group and key is in `man schemebridge-config`; a comment is a line of its own (a `#`
/// after a value is part of the value):
///
/// ```ini
/// [Policy]
/// # true: identified apps may only query schemes they declare
/// QueryPrivacy=false
/// # ReservedSchemes=http;https;... replaces the built-in list; this adds to it
/// ExtraReservedSchemes=bank;
/// # launches per second per caller (0 = no limit), and the burst
/// MaxLaunchRate=50
/// LaunchBurst=100
/// # per second, all unidentified callers together (0 = no limit)
/// UnidentifiedLaunchRate=2
/// UnidentifiedLaunchBurst=10
/// # D-Bus activations / spawns in flight at once, and for one caller
/// MaxConcurrentLaunches=32
/// MaxLaunchesPerCaller=8
/// # SetDefaultHandler calls per second per caller (0 = no limit)
/// MaxSetDefaultRate=2
/// SetDefaultBurst=20
///
/// [LaunchImages]
/// # false: never show launch images; the times are in ms
/// Enabled=true
/// ShowDelay=150
/// MinimumDuration=300
/// Timeout=10000
/// # splash helpers at once; past it a launch shows no image
/// MaxHelpers=4
///
/// [Pasteboards]
/// # seconds (``PasteboardLimits``)
/// DefaultExpiry=600
/// PersistentDefaultExpiry=604800
/// MaxExpiry=604800
/// MaxTemporaryExpiry=3600
/// MaxPasteboardsPerApp=64
/// MaxBytesPerApp=2147483648
/// MaxPasteboardsUnidentified=64
/// MaxBytesUnidentified=268435456
/// MaxPasteboards=4096
/// MaxBytes=8589934592
///
/// [Documents]
/// MaxInboxBytes=1073741824
/// Retention=604800
///
/// # ``ChooserSettings``
/// [Chooser]
/// Command=my-chooser
/// Timeout=120
///
/// # ``Route``
/// [Routes]
/// mailto from org.mozilla.firefox=org.example.Mail.desktop
///
/// # URLHandled/URLFailed to all: redacted|full|none (``BroadcastURLs``)
/// [Privacy]
/// BroadcastURLs=redacted
///
/// # a file a nearby device sends: ask|default|never (``OpenReceived``)
/// [Devices]
/// OpenReceived=ask
/// # seconds a share to a device is followed before its answer says "unknown" (``DeviceDelivery``)
/// Timeout=300
/// # seconds a transfer from a device may stand still before the user is told (``ReceiveStallRule``)
/// ReceiveStall=60
///
/// # verifying app links (``AppLinkConfig``)
/// [AppLinks]
/// CAFile=/etc/ssl/private-ca.pem
/// Resolve=intranet.example=10.0.0.5:8443;
/// Timeout=10
/// ```
///
/// Unknown groups and keys are ignored with a warning; a malformed file keeps the previous settings.
public struct PolicyConfig: Sendable, Equatable {
    public var queryPrivacy = false
    public var reservedSchemes = Policy.defaultReservedSchemes
    public var maxLaunchRate: Double = 50
    public var launchBurst: Double = 100
    /// `UnidentifiedLaunchRate`: the one bucket every unidentified caller shares.
    public var unidentifiedLaunchRate: Double = 2
    /// `UnidentifiedLaunchBurst`.
    public var unidentifiedLaunchBurst: Double = 10
    public var maxConcurrentLaunches = 32
    /// `MaxLaunchesPerCaller`: launches in flight for one caller (unidentified callers count as one).
    public var maxLaunchesPerCaller = 8
    /// `MaxSetDefaultRate`: `SetDefaultHandler` calls a second per caller.
    public var maxSetDefaultRate: Double = 2
    /// `SetDefaultBurst`.
    public var setDefaultBurst: Double = 20
    /// The most `MaxConcurrentLaunches` may be.
    public static let maximumConcurrentLaunches = 4096
    /// `[Callbacks] Enabled`: check x-callback URLs against the caller's entry and deliver them
    /// to it (pinned), never by scheme lookup.
    public var callbacks = true
    /// `[LaunchImages] Enabled`.
    public var launchImages = true
    /// `[LaunchImages] ShowDelay`, in milliseconds.
    public var splashShowDelay = 150
    /// `[LaunchImages] MinimumDuration`, in milliseconds.
    public var splashMinimumDuration = 300
    /// `[LaunchImages] Timeout`, in milliseconds.
    public var splashTimeout = 10_000
    /// `[LaunchImages] MaxHelpers`: splash helpers running at once.
    public var splashMaxHelpers = 4
    /// The most `MaxHelpers` may be.
    public static let maximumSplashHelpers = 64
    /// `[Pasteboards]`.
    public var pasteboards = PasteboardLimits()
    /// `[Documents] MaxInboxBytes`: what one app's Inbox may hold (1 GiB).
    public var inboxBytes: Int64 = 1 << 30
    /// `[Documents] Retention`: seconds an Inbox file is kept (7 days).
    public var inboxRetention: Int64 = 7 * 86_400
    /// `[Chooser]`: who asks the user when an open has `ask`.
    public var chooser = ChooserSettings()
    /// `[Routes]`: per-caller handlers, before the defaults (in file order).
    public var routes: [Route] = []
    /// `[Privacy] BroadcastURLs`: what the broadcast `URLHandled`/`URLFailed` carry of the URL.
    public var broadcastURLs = BroadcastURLs.redacted
    /// `[Devices] OpenReceived`: what happens to a file a nearby device sends.
    public var openReceived = OpenReceived.ask
    /// `[Devices] Timeout`: seconds a transfer the engine reports is followed (1…86400, 300).
    public var deviceTimeout: Int64 = 300
    /// `[Devices] ReceiveStall`: seconds a transfer from a device may stand still before the user is told (1…86400, 60).
    public var receiveStall: Int64 = 60
    /// `[AppLinks]`: how app links are verified (``AppLinkConfig``).
    public var appLinks = AppLinkConfig()

    public init() {}

    /// The groups the file may have.
    public static let groups: Set<String> = ["Policy", "LaunchImages", "Pasteboards", "Documents", "Chooser", "Routes", "Privacy", "Callbacks", "Devices", "AppLinks"]

    /// Parses `text` over `base` (the settings of the files before it, or the defaults): a key in
    /// `text` replaces the base's value, `ReservedSchemes` replaces the reserved schemes so far
    /// (`ExtraReservedSchemes` adds to them), and `[Routes]` lines come before the base's routes.
    /// `warnings` collects what was ignored.
    public static func parse(_ text: String, path: String, over base: PolicyConfig = PolicyConfig(), warnings: inout [String]) throws(KeyFileError) -> PolicyConfig {
        var c = base
        let file = try KeyFile(text: text, path: path)
        warnings += checkLayout(file)
        if let images = file.group("LaunchImages") {
            let known: Set<String> = ["Enabled", "ShowDelay", "MinimumDuration", "Timeout", "MaxHelpers"]
            for e in images.entries where !known.contains(e.key) {
                warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
            }
            if let b = images.boolean("Enabled") { c.launchImages = b }
            func milliseconds(_ key: String) -> Int? {
                guard let s = images.string(key) else { return nil }
                guard let v = Int(s), v >= 0, v <= 600_000 else {
                    warnings.append("\(path): \(key)=\(s) is not a number of milliseconds (0...600000); ignored")
                    return nil
                }
                return v
            }
            if let v = milliseconds("ShowDelay") { c.splashShowDelay = v }
            if let v = milliseconds("MinimumDuration") { c.splashMinimumDuration = v }
            if let v = milliseconds("Timeout") { c.splashTimeout = max(v, 1) }
            if let s = images.string("MaxHelpers") {
                if let v = Int(s), v >= 0, v <= maximumSplashHelpers { c.splashMaxHelpers = v } else {
                    warnings.append("\(path): MaxHelpers=\(s) is not a number from 0 to \(maximumSplashHelpers); ignored")
                }
            }
        }
        if let group = file.group("Pasteboards") {
            parsePasteboards(group, path: path, into: &c.pasteboards, warnings: &warnings)
        }
        if let group = file.group("Documents") {
            for e in group.entries where e.key != "MaxInboxBytes" && e.key != "Retention" {
                warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
            }
            for (key, range) in [("MaxInboxBytes", Int64(0)...(Int64(1) << 50)), ("Retention", Int64(1)...(Int64(10) * 366 * 86_400))] {
                guard let text = group.string(key) else { continue }
                guard let v = Int64(text), range.contains(v) else {
                    warnings.append("\(path): \(key)=\(text) is not a whole number from \(range.lowerBound) to \(range.upperBound); ignored")
                    continue
                }
                if key == "Retention" { c.inboxRetention = v } else { c.inboxBytes = v }
            }
        }
        if let g = file.group("Chooser") { c.chooser = ChooserSettings.parse(g, path: path, over: c.chooser, warnings: &warnings) }
        if let g = file.group("Routes") { c.routes = Route.parse(g, path: path, warnings: &warnings) + c.routes }
        if let privacy = file.group("Privacy") { c.broadcastURLs = parsePrivacy(privacy, path: path, over: c.broadcastURLs, warnings: &warnings) }
        if let g = file.group("Devices") {
            c.openReceived = parseDevices(g, path: path, over: c.openReceived, warnings: &warnings)
            for key in ["Timeout", "ReceiveStall"] {
                guard let s = g.string(key) else { continue }
                guard let v = Int64(s), (1...86_400).contains(v) else {
                    warnings.append("\(path): \(key)=\(s) is not a whole number from 1 to 86400; ignored")
                    continue
                }
                if key == "Timeout" { c.deviceTimeout = v } else { c.receiveStall = v }
            }
        }
        if let g = file.group("AppLinks") { c.appLinks = AppLinkConfig.parse(g, path: path, over: c.appLinks, warnings: &warnings) }
        if let callbacks = file.group("Callbacks") {
            for e in callbacks.entries where e.key != "Enabled" {
                warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
            }
            if let b = callbacks.boolean("Enabled") { c.callbacks = b }
        }
        guard let g = file.group("Policy") else { return c }
        let known: Set<String> = ["QueryPrivacy", "ReservedSchemes", "ExtraReservedSchemes", "MaxLaunchRate", "LaunchBurst", "MaxConcurrentLaunches",
                                  "UnidentifiedLaunchRate", "UnidentifiedLaunchBurst", "MaxLaunchesPerCaller", "MaxSetDefaultRate", "SetDefaultBurst"]
        for e in g.entries where !known.contains(e.key) {
            warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
        }
        if let b = g.boolean("QueryPrivacy") { c.queryPrivacy = b }
        func schemes(_ key: String) -> [String]? {
            g.stringList(key).map { $0.compactMap { s in (try? Scheme(s))?.name } }
        }
        if let list = schemes("ReservedSchemes") { c.reservedSchemes = Set(list) }
        if let extra = schemes("ExtraReservedSchemes") { c.reservedSchemes.formUnion(extra) }
        /// A number in `range`; anything else (huge, negative, not a number) is ignored with a
        /// warning, so no value in the file can trap a conversion.
        func number(_ key: String, _ range: ClosedRange<Double>) -> Double? {
            guard let s = g.string(key) else { return nil }
            guard let v = Double(s), v.isFinite, range.contains(v) else {
                warnings.append("\(path): \(key)=\(s) is not a number from \(range.lowerBound) to \(range.upperBound); ignored")
                return nil
            }
            return v
        }
        if let v = number("MaxLaunchRate", 0...1_000_000) { c.maxLaunchRate = v }
        if let v = number("LaunchBurst", 1...1_000_000) { c.launchBurst = v }
        if let v = number("MaxConcurrentLaunches", 1...Double(PolicyConfig.maximumConcurrentLaunches)) { c.maxConcurrentLaunches = Int(v) }
        if let v = number("UnidentifiedLaunchRate", 0...1_000_000) { c.unidentifiedLaunchRate = v }
        if let v = number("UnidentifiedLaunchBurst", 1...1_000_000) { c.unidentifiedLaunchBurst = v }
        if let v = number("MaxLaunchesPerCaller", 1...Double(PolicyConfig.maximumConcurrentLaunches)) { c.maxLaunchesPerCaller = Int(v) }
        if let v = number("MaxSetDefaultRate", 0...1_000_000) { c.maxSetDefaultRate = v }
        if let v = number("SetDefaultBurst", 1...1_000_000) { c.setDefaultBurst = v }
        return c
    }
}

extension PolicyConfig {
    /// Reads `[Privacy]`: `BroadcastURLs` (`base` when absent; `redacted` when not one of the values, with a warning).
    static func parsePrivacy(_ g: KeyFile.Group, path: String, over base: BroadcastURLs, warnings: inout [String]) -> BroadcastURLs {
        parseOnlyKey("BroadcastURLs", of: g, path: path, over: base, otherwise: .redacted, warnings: &warnings)
    }

    /// Reads `[Devices]`: `OpenReceived` (`base` when absent; `ask` when not one of the values, with a
    /// warning); `Timeout` and `ReceiveStall` are read by the caller.
    static func parseDevices(_ g: KeyFile.Group, path: String, over base: OpenReceived, warnings: inout [String]) -> OpenReceived {
        parseOnlyKey("OpenReceived", of: g, path: path, over: base, otherwise: .ask, also: ["Timeout", "ReceiveStall"], warnings: &warnings)
    }

    /// A group's one key, one of `Value`'s cases: `base` when absent, `otherwise` (with a
    /// warning) when not one of them; every other key is warned about.
    static func parseOnlyKey<Value: RawRepresentable & CaseIterable>(_ key: String, of g: KeyFile.Group, path: String, over base: Value,
                                                                     otherwise: Value, also: Set<String> = [], warnings: inout [String]) -> Value where Value.RawValue == String {
        for e in g.entries where e.key != key && !also.contains(e.key) {
            warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
        }
        guard let text = g.string(key) else { return base }
        guard let value = Value(rawValue: text) else {
            let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
            warnings.append("\(path): \(key)=\(text) is not one of \(names); \(otherwise.rawValue) is used")
            return otherwise
        }
        return value
    }

    /// Reads `[Pasteboards]`: whole numbers in range; anything else is ignored with a warning.
    static func parsePasteboards(_ g: KeyFile.Group, path: String, into p: inout PasteboardLimits, warnings: inout [String]) {
        let known: Set<String> = ["DefaultExpiry", "PersistentDefaultExpiry", "MaxExpiry", "MaxTemporaryExpiry", "MaxPasteboardsPerApp", "MaxBytesPerApp",
                                  "MaxPasteboardsUnidentified", "MaxBytesUnidentified", "MaxPasteboards", "MaxBytes"]
        for e in g.entries where !known.contains(e.key) {
            warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
        }
        func number(_ key: String, _ range: ClosedRange<Int64>) -> Int64? {
            guard let s = g.string(key) else { return nil }
            guard let v = Int64(s), range.contains(v) else {
                warnings.append("\(path): \(key)=\(s) is not a whole number from \(range.lowerBound) to \(range.upperBound); ignored")
                return nil
            }
            return v
        }
        let year: Int64 = 366 * 86_400
        if let v = number("DefaultExpiry", 1...year) { p.defaultExpiry = UInt64(v) }
        if let v = number("PersistentDefaultExpiry", 1...year) { p.persistentDefaultExpiry = UInt64(v) }
        if let v = number("MaxExpiry", 1...year) { p.maximumExpiry = UInt64(v) }
        if let v = number("MaxPasteboardsPerApp", 1...100_000) { p.maximumPerOwner = Int(v) }
        if let v = number("MaxBytesPerApp", 0...(1 << 50)) { p.maximumBytesPerOwner = v }
        if let v = number("MaxTemporaryExpiry", 1...3600) { p.maximumTemporaryExpiry = UInt64(v) }
        if let v = number("MaxPasteboardsUnidentified", 1...100_000) { p.maximumPerUnidentified = Int(v) }
        if let v = number("MaxBytesUnidentified", 0...(1 << 50)) { p.maximumBytesPerUnidentified = v }
        if let v = number("MaxPasteboards", 1...100_000) { p.maximumTotal = Int(v) }
        if let v = number("MaxBytes", 0...(1 << 50)) { p.maximumTotalBytes = v }
    }
}

/// The current ``PolicyConfig``, re-read when one of its files changes. A lookup costs one clock
/// read, and at most every 200 ms a `stat` of each file; so edits take effect within a fraction of
/// a second, without a restart and without a watcher thread.
public final class PolicyStore: Sendable {
    /// The user's config file (the last of ``paths``).
    public var path: String { paths.last ?? "" }
    /// The config files, lowest precedence first (``defaultPaths(directories:)``).
    public let paths: [String]
    private let overrides: @Sendable (inout PolicyConfig) -> Void
    private let warn: @Sendable (String) -> Void
    private struct State {
        var config: PolicyConfig
        var signatures: [FileSignature?]?
        var checkedAt: Int64 = 0
    }
    private let state: Mutex<State>
    /// Told of each new config read from the files (``onChange(_:)``).
    private let observers = Mutex<[@Sendable (PolicyConfig) -> Void]>([])

    /// One config file.
    public convenience init(path: String, overrides: @escaping @Sendable (inout PolicyConfig) -> Void = { _ in },
                            warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.init(paths: [path], overrides: overrides, warn: warn)
    }

    /// `paths`, lowest precedence first; `overrides` applies command-line settings on top of the
    /// files (they win).
    public init(paths: [String], overrides: @escaping @Sendable (inout PolicyConfig) -> Void = { _ in },
                warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.paths = paths
        self.overrides = overrides
        self.warn = warn
        var initial = PolicyConfig()
        overrides(&initial)
        state = Mutex(State(config: initial))
        _ = current
    }

    /// The user's config path for an environment: `$XDG_CONFIG_HOME/schemebridge/config`.
    public static func defaultPath(directories: XDGDirectories) -> String {
        XDGDirectories.join(XDGDirectories.join(directories.configHome, "schemebridge"), "config")
    }

    /// Calls `body` with each config read anew from the files (not with the current one): what
    /// follows the config (the registry's reserved schemes) is told of a change once, by the
    /// store, never by a lookup that reads it.
    public func onChange(_ body: @escaping @Sendable (PolicyConfig) -> Void) {
        observers.withLock { $0.append(body) }
    }

    /// Re-reads the files when due (as ``current`` does); a change is told to ``onChange(_:)``'s observers.
    public func noticeChanges() { _ = current }

    /// The settings in force now.
    public var current: PolicyConfig {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let now = Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        let (stale, config) = state.withLock { s -> (Bool, PolicyConfig) in
            if now - s.checkedAt < 200 && s.checkedAt != 0 { return (false, s.config) }
            s.checkedAt = now
            return (true, s.config)
        }
        guard stale else { return config }
        return reloadIfChanged() ?? config
    }

    private func reloadIfChanged() -> PolicyConfig? {
        let signatures = paths.map { path -> FileSignature? in
            var st = stat()
            return stat(path, &st) == 0 ? FileSignature(st) : nil
        }
        if state.withLock({ $0.signatures == signatures }) { return nil }
        let reading = PolicyConfig.read(paths)
        for w in reading.warnings { warn(w) }
        guard var config = reading.config else {
            state.withLock { $0.signatures = signatures }
            return nil
        }
        overrides(&config)
        state.withLock {
            $0.config = config
            $0.signatures = signatures
        }
        for observer in observers.withLock({ $0 }) { observer(config) }
        return config
    }
}
