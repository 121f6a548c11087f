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
public final class RecentLaunches: Sendable {
    /// One launch.
    public struct Launch: Sendable, Equatable {
        /// The URL, as launched.
        public var url: String
        /// The handler's desktop id.
        public var handlerID: String
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
    private let launches = Mutex<[Launch]>([])

    public init(window: Duration = .seconds(60), capacity: Int = 512) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// Remembers a launch of `url` by `entry`: process `pid` spawned, or `busName` activated.
    public func record(url: String, entry: DesktopEntry, pid: Int32? = nil, busName: String? = nil) {
        let now = ContinuousClock.now
        let launch = Launch(url: url, handlerID: entry.idText, handlerName: entry.name ?? entry.idText, pid: pid, busName: busName, at: now)
        launches.withLock { all in
            all.removeAll { now - $0.at > window }
            if all.count >= capacity { all.removeFirst(all.count - capacity + 1) }
            all.append(launch)
        }
    }

    /// Notes the pid that owns `busName`, activated for `url` (known once the activation is
    /// over), so later checks need no question to the bus.
    public func activated(url: String, busName: String, pid: Int32) {
        launches.withLock { all in
            for i in all.indices where all[i].url == url && all[i].busName == busName && all[i].pid == nil { all[i].pid = pid }
        }
    }

    /// The recent launches of `url`, newest first.
    public func launches(of url: String) -> [Launch] {
        let now = ContinuousClock.now
        return launches.withLock { all in all.filter { $0.url == url && now - $0.at <= window }.reversed() }
    }

    /// The launch of `url` that a caller with process chain `lineage` (itself first, then its
    /// ancestors) comes from, if any. `activatedPID` gives the pid owning an activated bus name
    /// now (asked only when a recent launch of this URL was an activation).
    public func handingBack(_ url: String, lineage: [Int32], activatedPID: (String) async -> Int32?) async -> Launch? {
        guard !lineage.isEmpty else { return nil }
        // One pass over the launches, newest first, copying only the launch returned and those
        // whose bus name is asked about: every `OpenURL` runs this, and a URL opened again and
        // again has up to `capacity` launches here (copying them all was ~15% of the service's
        // CPU in `make bench`'s OpenURL rounds).
        let now = ContinuousClock.now
        let (spawned, activations) = launches.withLock { all -> (Launch?, [(name: String, launch: Launch)]) in
            var activations: [(name: String, launch: Launch)] = []
            var names = Set<String>()
            for launch in all.reversed() where launch.url == url && now - launch.at <= window {
                if let pid = launch.pid {
                    if lineage.contains(pid) { return (launch, []) }
                } else if let name = launch.busName, names.insert(name).inserted {
                    activations.append((name, launch))
                }
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
