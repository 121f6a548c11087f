import Synchronization

/// Run-time loop safety: the handlers the service started recently, by URL, so that a request
/// coming back from one of them for the same URL — a handler that hands the URL back through
/// something ``LoopSafety`` cannot see in its `Exec` (a script file running `xdg-open "$1"`
/// while SchemeBridge is the xdg default, a wrapper program) — is refused instead of launching
/// the handler again, and again.
///
/// A request hands the URL back when it is for a URL launched within ``window`` and the
/// caller's process or one of its ancestors is the process started for it (spawned, or the
/// owner of the bus name D-Bus-activated for it). At most ``capacity`` launches are kept.
///
/// Every `OpenURL` asks (``handingBack(_:lineage:activatedPID:)``), so the question costs the
/// caller's lineage, not the launches kept: launches are found by their process (one probe per
/// process of the lineage), and activations whose process is not known yet by their URL. A URL
/// opened again and again keeps up to ``capacity`` launches; the old check walked (and copied)
/// all of them on every open (~10% of the service's CPU in `make bench`'s `OpenURL` rounds).
public final class RecentLaunches: Sendable {
    /// One launch.
    public struct Launch: Sendable, Equatable {
        /// The URL, as launched.
        public var url: String
        /// The handler's desktop id.
        public var handlerID: DesktopID
        /// The handler's name (`Name=`), else its id.
        public var handlerName: String
        /// The spawned process (nil for an activation).
        public var pid: Int32?
        /// The bus name activated (nil for a spawn).
        public var busName: String?
        /// When it was launched.
        public var at: ContinuousClock.Instant
    }

    /// How long a launch is remembered.
    public let window: Duration
    /// The most launches remembered.
    public let capacity: Int

    private struct State {
        /// The launches kept, by serial (increasing with time).
        var launches: [UInt64: Launch] = [:]
        /// Their serials, oldest first from `head` (expiry and capacity drop from there).
        var order: [UInt64] = []
        var head = 0
        var next: UInt64 = 0
        /// Serials of the launches whose process is known, by process.
        var byPID: [Int32: [UInt64]] = [:]
        /// Serials of the activations whose process is not known yet, by URL.
        var activating: [String: [UInt64]] = [:]

        var count: Int { order.count - head }

        mutating func add(_ launch: Launch) {
            let serial = next
            next += 1
            launches[serial] = launch
            order.append(serial)
            if let pid = launch.pid { byPID[pid, default: []].append(serial) } else { activating[launch.url, default: []].append(serial) }
        }

        /// Drops what is older than `window` before `now`, and the oldest beyond `capacity`.
        mutating func prune(now: ContinuousClock.Instant, window: Duration, capacity: Int) {
            while head < order.count {
                let serial = order[head]
                if let launch = launches[serial], count <= capacity, now - launch.at <= window { break }
                head += 1
                guard let launch = launches.removeValue(forKey: serial) else { continue }
                if let pid = launch.pid { Self.remove(serial, from: &byPID, key: pid) } else { Self.remove(serial, from: &activating, key: launch.url) }
            }
            if head > 64 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }

        static func remove<K: Hashable>(_ serial: UInt64, from table: inout [K: [UInt64]], key: K) {
            guard var serials = table[key] else { return }
            serials.removeAll { $0 == serial }
            table[key] = serials.isEmpty ? nil : serials
        }
    }
    private let state = Mutex(State())

    public init(window: Duration = .seconds(60), capacity: Int = 512) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// Remembers a launch of `url` by `entry`: process `pid` spawned, or `busName` activated.
    public func record(url: String, entry: DesktopEntry, pid: Int32? = nil, busName: String? = nil) {
        let now = ContinuousClock.now
        let launch = Launch(url: url, handlerID: entry.id, handlerName: entry.name ?? entry.idText, pid: pid, busName: busName, at: now)
        state.withLock { s in
            s.add(launch)
            s.prune(now: now, window: window, capacity: capacity)
        }
    }

    /// Notes the pid that owns `busName`, activated for `url` (known once the activation is
    /// over), so later checks need no question to the bus.
    public func activated(url: String, busName: String, pid: Int32) {
        state.withLock { s in
            for serial in s.activating[url] ?? [] where s.launches[serial]?.busName == busName {
                s.launches[serial]?.pid = pid
                State.remove(serial, from: &s.activating, key: url)
                s.byPID[pid, default: []].append(serial)
            }
        }
    }

    /// The recent launches of `url`, newest first.
    public func launches(of url: String) -> [Launch] {
        let now = ContinuousClock.now
        return state.withLock { s in
            s.prune(now: now, window: window, capacity: capacity)
            return s.order[s.head...].reversed().compactMap { s.launches[$0] }.filter { $0.url == url }
        }
    }

    /// The launch of `url` that a caller with process chain `lineage` (itself first, then its
    /// ancestors) comes from, if any: the newest. `activatedPID` gives the pid owning an activated
    /// bus name now (asked, once a name, only when a recent launch of this URL is an activation
    /// whose process is not known yet).
    public func handingBack(_ url: String, lineage: [Int32], activatedPID: (String) async -> Int32?) async -> Launch? {
        guard !lineage.isEmpty else { return nil }
        let now = ContinuousClock.now
        let (spawned, activations) = state.withLock { s -> (Launch?, [(name: String, launch: Launch)]) in
            s.prune(now: now, window: window, capacity: capacity)
            var newest: UInt64? = nil
            for pid in lineage {
                for serial in s.byPID[pid] ?? [] where newest.map({ serial > $0 }) ?? true && s.launches[serial]?.url == url {
                    newest = serial
                }
            }
            if let newest, let launch = s.launches[newest] { return (launch, []) }
            var activations: [(name: String, launch: Launch)] = []
            var names = Set<String>()
            for serial in (s.activating[url] ?? []).reversed() {
                if let launch = s.launches[serial], let name = launch.busName, names.insert(name).inserted { activations.append((name, launch)) }
            }
            return (nil, activations)
        }
        if let spawned { return spawned }
        // Activations still under way (their pid not noted yet): the bus is asked once a name.
        for (name, launch) in activations {
            if let pid = await activatedPID(name), lineage.contains(pid) { return launch }
        }
        return nil
    }

    /// The message of the `LaunchFailed` error for a request that `launch` hands back.
    public static func message(_ launch: Launch) -> String {
        "\(launch.handlerName) (\(launch.handlerID)) hands the URL back to SchemeBridge: started to open this URL, it asked "
            + "to open the same URL again, so it is not started again. A handler must open the URL itself; choose another "
            + "handler for the scheme (SetDefaultHandler, or the `handler` option)."
    }
}
