import Synchronization

/// Who waits for a request's handler (the daemon's reply service): told which process or
/// connection the handler is once it started, and when a spawned one ended.
public protocol HandlerWatcher: Sendable {
    /// Request `request`'s handler started as `handler`.
    func started(_ request: UInt64, handler: LaunchedHandler)
    /// Request `request`'s spawned handler ended with `status`.
    func handlerExited(_ request: UInt64, status: Int32)
    /// Request `request`'s handler was D-Bus-activated: its name's owner is `owner` (nil: the
    /// name has none, the handler left), its process `pid`.
    func activated(_ request: UInt64, owner: String?, pid: UInt32?) async
}

/// What starting a D-Bus-activatable handler needs from the bus (the daemon's bus-driver client;
/// the core has no D-Bus).
public protocol ActivationBus: Sendable {
    /// Starts `busName` by activation unless it runs; a failure shows in the call that follows.
    func startService(_ busName: String) async
    /// The unique name owning `busName` (nil: none, or the bus would not say).
    func owner(of busName: String) async -> String?
    /// The pid of `busName`'s owner (nil: none, or the bus would not say); for a unique name, that
    /// connection's (which never changes: a caller's known pid may be used).
    func processID(of busName: String) async -> UInt32?
}

/// Why a handler is started: it decides what is remembered about it.
public enum LaunchPurpose: Sendable, Equatable {
    /// Opening a URL or a document: the handler is recorded for loop safety
    /// (``RecentLaunches``), its Flatpak app's replies count (``HandlerProcess/sandboxAppID``), and a
    /// non-zero exit is logged.
    case open
    /// Delivering a share to an app: none of that (a share's URL is not handed back).
    case share
    /// Starting a pick's provider: as a share.
    case pick
}

/// The launching rules around the admitted plan: which spawned process a reply request and the
/// x-callback routes watch (the first), the pasteboard grant a started handler holds from its
/// start to its exit (its process) or for its connection (an activated app's owner), and the
/// recent launches loop safety reads. The daemon spawns through it and makes the D-Bus calls
/// (`org.freedesktop.Application.Open`) between ``activating(_:busName:request:pasteboard:watcher:bus:)`` and
/// ``activated(_:busName:request:watcher:bus:)``.
public final class HandlerStarter: Sendable {
    /// The handlers started recently, for run-time loop safety.
    public let recentLaunches: RecentLaunches
    /// The environment handed to spawned handlers (before the launch context's variables).
    public let baseEnvironment: [String: String]
    /// ``baseEnvironment`` prepared once for every spawn.
    let spawnEnvironment: SpawnEnvironment
    let launcher = ProcessLauncher()
    let callbackRoutes: CallbackRoutes
    let pasteboards: PasteboardStore
    let log: @Sendable (String) -> Void

    /// `log`: where a handler's non-zero exit is reported.
    public init(baseEnvironment: [String: String], callbackRoutes: CallbackRoutes, pasteboards: PasteboardStore,
                recentLaunches: RecentLaunches = RecentLaunches(), log: @escaping @Sendable (String) -> Void) {
        self.baseEnvironment = baseEnvironment
        self.spawnEnvironment = SpawnEnvironment(baseEnvironment)
        self.callbackRoutes = callbackRoutes
        self.pasteboards = pasteboards
        self.recentLaunches = recentLaunches
        self.log = log
    }

    /// Spawns every command of `admission`'s plan (which must be `.spawn`) and returns the pids.
    /// The first process is the one `request` (told to `watcher`) and the x-callback routes watch,
    /// held by a pidfd before it can be reaped; each process may read `pasteboard` from its start
    /// to its exit. A command that cannot start throws `LaunchFailed` (those before it run on).
    public func spawn(_ admission: Admission, purpose: LaunchPurpose = .open, request: UInt64?, pasteboard: String?,
                      watcher: some HandlerWatcher) throws(OpenFailure) -> [Int32] {
        guard case .spawn(let commands) = admission.plan.action else { return [] }
        return try spawn(commands, of: admission.plan.entry, url: admission.plan.url?.string ?? "", context: admission.context,
                         callbackGroup: admission.callbackGroup, purpose: purpose, request: request, pasteboard: pasteboard, watcher: watcher)
    }

    /// Spawns `commands` of `entry` (opening `url`, told `context`) as ``spawn(_:purpose:request:pasteboard:watcher:)``
    /// does; for a pick's provider, which is started without an admission. `arming`: where the
    /// reaper's watch of each process runs (``ProcessLauncher``; nil: at once).
    public func spawn(_ commands: [LaunchCommand], of entry: DesktopEntry, url: String, context: LaunchContext, callbackGroup: UInt64? = nil,
                      purpose: LaunchPurpose, request: UInt64?, pasteboard: String? = nil, watcher: some HandlerWatcher,
                      arming: ((@escaping @Sendable () -> Void) -> Void)? = nil) throws(OpenFailure) -> [Int32] {
        var pids: [Int32] = []
        for command in commands {
            let first = pids.isEmpty
            let watched = first ? request : nil
            let group = first ? callbackGroup : nil
            let sandboxAppID = purpose == .open ? entry.flatpakAppID : nil
            let (name, store, routes, log) = (entry.idText, pasteboards, callbackRoutes, self.log)
            let held = Mutex<HandlerProcess?>(nil)
            // The pid, for dropping its pasteboard grant when it ends (before it can be reused).
            let started = Mutex<Int32?>(nil)
            do {
                pids.append(try launcher.spawn(arguments: command.arguments, environment: spawnEnvironment.setting(command.environment).setting(context.environment),
                                               workingDirectory: command.workingDirectory, onStart: { pid in
                                                   if let pasteboard { store.addLaunchGrant(pasteboard, .process(pid)) }
                                                   started.withLock { $0 = pid }
                                                   // Held (a pidfd) only for whoever watches it: a request, x-callback routes.
                                                   guard watched != nil || group != nil else { return }
                                                   let process = HandlerProcess(pid: pid, sandboxAppID: sandboxAppID)
                                                   held.withLock { $0 = process }
                                                   if let group { routes.started(group, handler: .spawned(process)) }
                                               }, onExit: { code in
                                                   if pasteboard != nil, let pid = started.withLock({ $0 }) { store.dropLaunchGrant(.process(pid)) }
                                                   if code != 0, purpose == .open { log("handler \(name) exited with status \(code)") }
                                                   if let watched { watcher.handlerExited(watched, status: code) }
                                               }, arming: arming))
                if let watched, let process = held.withLock({ $0 }) { watcher.started(watched, handler: .spawned(process)) }
            } catch {
                throw OpenFailure(.launchFailed, "cannot start \(entry.name ?? name) (\(name)): \(error.reason)")
            }
        }
        if purpose == .open {
            for pid in pids { recentLaunches.record(url: url, entry: entry, pid: pid) }
        }
        return pids
    }

    /// Before an activatable handler's `Open` (or `ActivateAction`, a provider's `Activate`;
    /// `admission` is nil for a provider, started without one): `request` and the x-callback
    /// routes watch whoever owns `busName`; with `pasteboard`, the app is started first unless it
    /// runs (it may read inside its `Open`) and its owner's connection granted.
    public func activating(_ admission: Admission?, purpose: LaunchPurpose = .open, busName: String, request: UInt64?, pasteboard: String?,
                           watcher: some HandlerWatcher, bus: some ActivationBus) async {
        if let request { watcher.started(request, handler: .activating(busName: busName)) }
        if let group = admission?.callbackGroup { callbackRoutes.started(group, handler: .activating(busName: busName)) }
        if purpose == .open, let plan = admission?.plan, let url = plan.url { recentLaunches.record(url: url.string, entry: plan.entry, busName: busName) }
        if let pasteboard {
            var owner = await bus.owner(of: busName)
            if owner == nil {
                await bus.startService(busName)
                owner = await bus.owner(of: busName)
            }
            if let owner { pasteboards.addLaunchGrant(pasteboard, .connection(owner)) }
        }
    }

    /// After an activatable handler's `Open` returned: its pid (returned), recorded for loop
    /// safety; `request` and the x-callback routes now watch its owner's connection and process.
    /// `admission`: nil for a pick's provider (started without one).
    /// `answeredBy`: the connection that answered the call (the name's owner then), else the owner
    /// is asked of the bus beside the pid (one round trip's wait, not two), once for all of these.
    public func activated(_ admission: Admission?, purpose: LaunchPurpose = .open, busName: String, answeredBy: String? = nil, request: UInt64?,
                          watcher: some HandlerWatcher, bus: some ActivationBus) async -> UInt32? {
        let (owner, pid) = await Self.ownerAndProcess(of: busName, answeredBy: answeredBy,
                                                      needsOwner: request != nil || admission?.callbackGroup != nil, bus: bus)
        if let pid, purpose == .open, let url = admission?.plan.url {
            recentLaunches.activated(url: url.string, busName: busName, pid: Int32(bitPattern: pid))
        }
        if let request { await watcher.activated(request, owner: owner, pid: pid) }
        if let group = admission?.callbackGroup, let owner {
            callbackRoutes.started(group, handler: .activated(owner: owner, process: pid.map { HandlerProcess(pid: Int32(bitPattern: $0)) }))
        }
        return pid
    }

    private static func ownerAndProcess(of busName: String, answeredBy: String?, needsOwner: Bool,
                                        bus: some ActivationBus) async -> (owner: String?, pid: UInt32?) {
        if let answeredBy { return (answeredBy, await bus.processID(of: answeredBy)) }
        async let asked = needsOwner ? bus.owner(of: busName) : nil
        let pid = await bus.processID(of: busName)
        return (await asked, pid)
    }
}
