import DBus
import Logging
import SchemeBridgeCore
import Synchronization

/// What an engine client (``KDEConnectEngine``, ``GSConnectEngine``) needs to follow its engine
/// live: the engine's unique name from the bus's `NameOwnerChanged` — taken only once that
/// owner is judged to be the engine (``EngineCheck``; until then, and for an owner that is not,
/// there is no engine: no devices, no signals believed) — its signals taken only from
/// that name, and one re-read of its devices per burst of signals (newest request only, never an
/// older list over a newer one), handed to the watchers of the share targets when it changed.
/// `Snapshot` is what one read yields (the devices, and whatever else the engine needs to send).
final class EngineFollower<Snapshot: Sendable & Equatable>: Sendable {
    struct State {
        /// The engine's unique name while it runs (an owner judged to be the engine).
        var owner: String?
        /// What is known of its process.
        var process: EngineProcess?
        var snapshot: Snapshot
        /// The share targets `snapshot` holds (made when it changes, not at each share).
        var shareTargets: [NearbyDevice]
        var watchers: [UInt64: AsyncStream<[NearbyDevice]>.Continuation] = [:]
        var nextID: UInt64 = 1
        var tasks: [Task<Void, Never>] = []
    }
    let state: Mutex<State>
    /// Refresh requests; newest only, so a burst of signals is one read of the list.
    private let refreshes = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    private let empty: Snapshot
    private let targets: @Sendable (Snapshot) -> [NearbyDevice]

    /// `empty` is the snapshot without an engine; `targets` picks the share targets from one.
    init(empty: Snapshot, targets: @escaping @Sendable (Snapshot) -> [NearbyDevice]) {
        self.empty = empty
        self.targets = targets
        state = Mutex(State(snapshot: empty, shareTargets: targets(empty)))
    }

    /// Subscribes to `busName`'s owner changes and to the engine's signals under `pathNamespace`,
    /// reads the first snapshot (waiting at most `startWait`), then follows: `handle` sees each
    /// signal from the current owner and says whether to read again; `read` reads a snapshot
    /// from the owner. An owner is the engine only once `check` says it is `engine`. Throws only
    /// when the bus refuses the subscriptions.
    func start(connection: Connection, busName: BusName, pathNamespace: ObjectPath, startWait: Duration, logger: Logger, label: String,
               engine: DeviceEngineKind, check: EngineCheck,
               read: @escaping @Sendable (String) async -> Snapshot, handle: @escaping @Sendable (Message) -> Bool) async throws(DBusError) {
        let owners = try await connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: busName.rawValue))
        let engineSignals = try await connection.signals(matching: MatchRule(sender: busName, pathNamespace: pathNamespace))
        let judge = { @Sendable (owner: String) async -> EngineProcess? in
            await check.judge(owner: owner, busName: busName, engine: engine, connection: connection, logger: logger, label: label)
        }
        if let owner = try? await BusDriver(connection).nameOwner(busName.rawValue), let process = await judge(owner) {
            state.withLock { $0.owner = owner; $0.process = process }
        }
        let refreshNow: @Sendable () async -> Void = { [self] in
            var found = empty
            let owner = state.withLock { $0.owner }
            if let owner { found = await read(owner) }
            let (changed, watchers, targets) = state.withLock { s in
                // Read from an engine that has left (or been replaced) since: not kept; the
                // change of owner queued a refresh of its own.
                guard s.owner == owner else { return (false, [AsyncStream<[NearbyDevice]>.Continuation](), [NearbyDevice]()) }
                let changed = s.snapshot != found
                if changed { (s.snapshot, s.shareTargets) = (found, self.targets(found)) }
                return (changed, Array(s.watchers.values), s.shareTargets)
            }
            if changed {
                logger.info("\(label) devices that can receive: \(targets.map { "\($0.name) (\($0.id))" }.joined(separator: ", "))")
                for w in watchers { w.yield(targets) }
            }
        }
        // The first list, waited for at most `startWait`: an engine that does not answer must not
        // hold up the service's start (its list comes when it answers). Refreshes asked for
        // meanwhile run after it, so an older list never replaces a newer one.
        let first = Task { await refreshNow() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first.value }
            group.addTask { try? await Task.sleep(for: startWait) }
            await group.next()
            group.cancelAll()
        }
        let followers = [
            Task { [self] in
                for await change in owners.compactMap(NameOwnerChanged.init(message:)) where change.name == busName.rawValue {
                    let owner = change.newOwner.isEmpty ? nil : change.newOwner
                    // An engine that leaves takes its devices with it at once, in the same step
                    // (no moment where it is gone but its devices are still targets); a new
                    // owner has none until it is judged to be the engine.
                    let cleared = state.withLock { s -> [AsyncStream<[NearbyDevice]>.Continuation]? in
                        s.owner = nil
                        s.process = nil
                        guard s.snapshot != empty else { return nil }
                        (s.snapshot, s.shareTargets) = (empty, targets(empty))
                        return Array(s.watchers.values)
                    }
                    for w in cleared ?? [] { w.yield(targets(empty)) }
                    guard let owner else {
                        logger.info("\(label) left the bus: no \(label) device targets")
                        continue
                    }
                    guard let process = await judge(owner) else { continue }
                    state.withLock { $0.owner = owner; $0.process = process }
                    logger.info("\(label) is on the bus as \(owner) (\(process.executable))")
                    refreshes.continuation.yield()
                }
            },
            Task { [self] in
                for await message in engineSignals {
                    guard let owner = state.withLock({ $0.owner }), message.sender == owner, handle(message) else { continue }
                    refreshes.continuation.yield()
                }
            },
            Task { [self] in
                await first.value
                for await _ in refreshes.stream { await refreshNow() }
            },
        ]
        state.withLock { $0.tasks += followers }
    }

    /// Stops following: the streams handed out end.
    func stop() {
        let (tasks, watchers) = state.withLock { s in
            defer { s.tasks = []; s.watchers = [:] }
            return (s.tasks, s.watchers)
        }
        tasks.forEach { $0.cancel() }
        refreshes.continuation.finish()
        watchers.values.forEach { $0.finish() }
    }

    /// The engine's unique name while it runs.
    var owner: String? { state.withLock { $0.owner } }

    /// What is known of the engine's process while it runs.
    var process: EngineProcess? { state.withLock { $0.process } }

    /// The last snapshot read.
    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// The engine's owner and the last snapshot, read together.
    var ownerAndSnapshot: (owner: String?, snapshot: Snapshot) { state.withLock { ($0.owner, $0.snapshot) } }

    /// The share targets of the last snapshot read.
    var shareTargets: [NearbyDevice] { state.withLock { $0.shareTargets } }

    /// The share targets now and after every change.
    func shareTargetChanges() -> AsyncStream<[NearbyDevice]> {
        let (stream, continuation) = AsyncStream<[NearbyDevice]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.watchers[id] = continuation
            continuation.yield(targets(s.snapshot))
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) } }
        return stream
    }

    /// The reason a call to the engine (shown as `label`) failed, for the Response's
    /// `error-message`; `gone` says how a device that went away shows.
    static func failure(_ error: DBusError, label: String, device: NearbyDevice, gone: String) -> ServiceFailure {
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            return ServiceFailure(.launchFailed, "\(label) stopped before it took the share for \(device.name)")
        case .noReply, .disconnected:
            return ServiceFailure(.launchFailed, "\(label) did not take the share for \(device.name) (it stopped or does not answer): \(error.message)")
        case .unknownObject, .unknownMethod, .unknownInterface:
            return ServiceFailure(.launchFailed, "\(device.name) went away (\(gone))")
        default:
            return ServiceFailure(.launchFailed, "\(label) refused the share for \(device.name): \(error.name.rawValue): \(error.message)")
        }
    }
}
