import DBus
import Logging
import SchemeBridgeCore
import Synchronization

/// What kdeconnectd reports of its own uploads, followed through the KDE job tracker it reports
/// them to (KDE Connect 22.12: `CompositeUploadJob` registers with `Daemon::jobTracker()`, KIO's
/// `KDynamicJobTracker`). Per job that tracker asks `org.kde.kuiserver` at `/JobViewServer`
/// `requiresJobTracker()` (synchronously, while the engine is still in the `shareUrl` call that
/// made the job); when the answer is false and that object introspects with
/// `org.kde.JobViewServerV2`, KJobWidgets' `KUiServerV2JobTracker` asks `org.kde.JobViewServer`
/// `requestView(desktopEntry, capabilities, hints) → o` — half a second after the job started,
/// and only if it is still running — and then calls `update(a{sv})` and
/// `terminate(errorCode, errorMessage, hints)` on that object (`org.kde.JobViewV3`); the job is
/// killed when the object emits `cancelRequested`.
///
/// This serves those two names while nobody else does — never in a KDE session (there
/// plasmashell is the job viewer and shows the progress itself) — and only for the engine:
/// `requiresJobTracker` is true for any other caller (it keeps its own progress dialogs), and
/// views are made and updated only by the engine's current unique name.
public final class KDEConnectJobs: Sendable {
    static let kuiserver: BusName = "org.kde.kuiserver"
    static let jobViewServer: BusName = "org.kde.JobViewServer"
    static let serverPath: ObjectPath = "/JobViewServer"
    static let viewInterface: InterfaceName = "org.kde.JobViewV3"
    static let viewPrefix = "/io/github/schemebridge/JobViews/"
    /// The most job views kept (the oldest ended ones are forgotten first).
    static let maximumViews = 256

    /// Where following starts: what had happened before a share was handed to the engine.
    public struct Mark: Sendable {
        let registrations: UInt64
        let nextView: UInt64
        let generation: UInt64
    }

    struct State {
        var serving = false
        var registrations: UInt64 = 0
        var views: [UInt64: EngineJob] = [:]
        /// When each view was made or last updated (``watchReceiving(quiet:port:)``).
        var changed: [UInt64: ContinuousClock.Instant] = [:]
        /// The views whose objects are exported (not ended yet), by the unique name that asked for them.
        var exported: [UInt64: String] = [:]
        var nextView: UInt64 = 1
        /// Bumped each time the engine's name changes owner.
        var generation: UInt64 = 0
        var watchers: [UInt64: AsyncStream<Void>.Continuation] = [:]
        var nextWatcher: UInt64 = 1
        var tasks: [Task<Void, Never>] = []
        /// The follows' deadlines (``FollowDeadlines``) and their one sleeper (the newest generation's).
        var deadlines = FollowDeadlines()
        var sleeperGeneration: UInt64 = 0
        var sleeper: Task<Void, Never>?
    }
    private let state = Mutex(State())
    let connection: Connection
    let logger: Logger
    /// The engine's current unique name (judged to be the engine), nil while it is absent.
    let engineOwner: @Sendable () -> String?

    init(connection: Connection, logger: Logger, engineOwner: @escaping @Sendable () -> String?) {
        self.connection = connection
        self.logger = logger
        self.engineOwner = engineOwner
    }

    /// Whether the engine's job reports come here.
    public var isServing: Bool { state.withLock { $0.serving } }

    /// Serves `org.kde.kuiserver` and `org.kde.JobViewServer` unless `desktop` (the session's
    /// `XDG_CURRENT_DESKTOP`) is KDE or another program owns either name.
    public func start(desktop: String?) async {
        if let desktop, desktop.split(separator: ":").contains(where: { $0.uppercased() == "KDE" }) {
            logger.info("a KDE session: its job viewer shows KDE Connect's transfers; a device share's answer says the engine took it, no more")
            return
        }
        do {
            let owners = try await connection.signals(matching: MatchRule(
                sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: KDEConnectNames.busName.rawValue))
            let task = Task { [self] in
                for await change in owners {
                    // The views the engine that left never ended go with it (no one else may end them).
                    let left = change.body.count > 1 ? change.body[1].string ?? "" : ""
                    let (list, gone) = state.withLock { s in
                        s.generation += 1
                        let gone = s.exported.filter { $0.value == left }.map(\.key)
                        for id in gone { s.exported.removeValue(forKey: id) }
                        return (Array(s.watchers.values), gone)
                    }
                    for id in gone { unexportView(id) }
                    list.forEach { $0.yield() }
                }
            }
            state.withLock { $0.tasks.append(task) }
            try connection.export([serverInterface(), kuiserverInterface()], at: Self.serverPath)
            let first = try await connection.requestName(Self.kuiserver)
            let second = try await connection.requestName(Self.jobViewServer)
            guard first == .primaryOwner, second == .primaryOwner else {
                if first == .primaryOwner { try? await connection.releaseName(Self.kuiserver) }
                if second == .primaryOwner { try? await connection.releaseName(Self.jobViewServer) }
                connection.unexport(Self.serverPath)
                logger.info("another job viewer owns org.kde.kuiserver or org.kde.JobViewServer: a device share's answer says the engine took it, no more")
                return
            }
            state.withLock { $0.serving = true }
        } catch {
            logger.warning("cannot serve KDE Connect's job reports (a device share's answer says the engine took it, no more): \(error)")
        }
    }

    /// Stops following.
    public func stop() {
        let (tasks, watchers) = state.withLock { s in
            defer { s.tasks = []; s.watchers = [:]; s.sleeper = nil; s.sleeperGeneration += 1 }
            return (s.tasks + [s.sleeper].compactMap { $0 }, s.watchers)
        }
        tasks.forEach { $0.cancel() }
        watchers.values.forEach { $0.finish() }
    }

    /// What has happened so far: taken just before the engine is called.
    public func mark() -> Mark {
        state.withLock { Mark(registrations: $0.registrations, nextView: $0.nextView, generation: $0.generation) }
    }


    /// Asks the engine to cancel the job of view `id` (`cancelRequested`: KDE Connect kills it).
    public func cancel(_ id: UInt64) {
        guard let owner = engineOwner(), let path = try? ObjectPath(Self.viewPrefix + String(id)) else { return }
        try? connection.emit(path: path, interface: Self.viewInterface, member: "cancelRequested", destination: try? BusName(owner))
    }

    /// Follows the job the engine made for a share of files named `names` to device `device`
    /// since `mark`: its progress to `progress` (view id, percent), until it ends, the engine
    /// leaves, `timeout` runs out, or — when no view for it comes within `grace` (the tracker asks
    /// for one only for a job still running after half a second) — it ended unreported.
    public func follow(since mark: Mark, names: Set<String>, device: String, timeout: Duration, grace: Duration = .seconds(2),
                       progress: @escaping @Sendable (UInt64, UInt32) -> Void = { _, _ in }) async -> (DeviceDelivery, String?) {
        let (stream, _, id) = changes()
        let clock = ContinuousClock()
        let start = clock.now
        // Woken at the grace and at the timeout by the one sleeper of every follow (deadlines, not polling).
        wake(id, at: [start + grace, start + timeout])
        defer { state.withLock { s in _ = s.watchers.removeValue(forKey: id); s.deadlines.remove(id) } }
        var lastPercent: UInt32?
        func evaluate(finished: Bool) -> (DeviceDelivery, String?)? {
            let (view, left) = state.withLock { s -> ((UInt64, EngineJob)?, Bool) in
                // A view made since the share (naming one of its files, or none yet), else a job
                // running from before that the files joined (KDE Connect adds a file to the upload
                // it is running) once it names one of them.
                let found = s.views.filter { v in
                    v.key >= mark.nextView ? DeviceDeliveryRule.matches(v.value, names: names)
                        : v.value.endCode == nil && !v.value.receiving && !v.value.files.isDisjoint(with: names)
                }.min { $0.key < $1.key }
                return (found, s.generation != mark.generation)
            }
            if let (viewID, job) = view, let p = job.progress, p != lastPercent {
                lastPercent = p
                progress(viewID, p)
            }
            let elapsed = clock.now - start
            let timedOut = elapsed >= timeout || finished
            if view?.1.endCode != nil || left || timedOut {
                return DeviceDeliveryRule.outcome(job: view?.1, engineLeft: left, timedOut: timedOut, device: device, engine: "KDE Connect")
            }
            if view == nil, elapsed >= grace { return (.handedToEngine, nil) }
            return nil
        }
        if let answer = evaluate(finished: false) { return answer }
        for await _ in stream {
            if let answer = evaluate(finished: false) { return answer }
        }
        return evaluate(finished: true) ?? (.unknown, nil)
    }

    /// Tells `port` of each transfer the engine receives that stopped moving for `quiet()`
    /// (``ReceiveStallRule``: the `[Devices] ReceiveStall` read at each look) and withdraws the
    /// notice when it moves or ends, until the task is cancelled or following stops.
    public func watchReceiving(quiet: @escaping @Sendable () -> Duration, port: some ReceiveStallPort) async {
        let (stream, continuation, watcher) = changes()
        var told: [UInt64: (changed: ContinuousClock.Instant, notice: UInt32?)] = [:]
        var alarm: Task<Void, Never>?
        defer {
            alarm?.cancel()
            state.withLock { _ = $0.watchers.removeValue(forKey: watcher) }
        }
        func look() async {
            let wait = quiet()
            // The receiving views still exported: one the engine ended, or whose engine left (the
            // user restarted KDE Connect, say), is no longer watched and its notice goes.
            let views = state.withLock { s in
                Dictionary(uniqueKeysWithValues: s.views.compactMap { id, job in
                    job.receiving && s.exported[id] != nil ? (id, ReceiveStallRule.Seen(job: job, changed: s.changed[id] ?? .now)) : nil
                })
            }
            let due = ReceiveStallRule.due(views: views, told: told.mapValues(\.changed), quiet: wait, now: .now)
            for id in due.withdraw {
                guard let notice = told.removeValue(forKey: id)?.notice else { continue }
                let (job, exported) = state.withLock { ($0.views[id], $0.exported[id] != nil) }
                let how = job?.endCode != nil ? "ended" : exported ? "moves again" : "is gone with its engine"
                logger.info("the transfer from \(job?.source ?? "a device") \(how): its notice \(notice) withdrawn")
                await port.withdraw(notice)
            }
            for id in due.tell {
                guard let seen = views[id] else { continue }
                let plain = ReceiveStallRule.notice(seen.job, quiet: wait, markup: false)
                logger.notice("\(plain.summary): \(plain.body)")
                let (summary, body) = ReceiveStallRule.notice(seen.job, quiet: wait, markup: await port.bodyMarkup())
                let notice = await port.show(summary: summary, body: body)
                if notice == nil { logger.warning("no notification server showed it") }
                told[id] = (seen.changed, notice)
            }
            alarm?.cancel()
            alarm = due.next.map { next in
                Task {
                    do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
                    continuation.yield()
                }
            }
        }
        await look()
        for await _ in stream { await look() }
    }

    /// Wakes follow `id` at `instants`: a sleeper is started only when none sleeps or the one
    /// that sleeps wakes after them (``FollowDeadlines``); it runs where the follows run (the D-Bus
    /// loop thread), and a newer one replaces it.
    private func wake(_ id: UInt64, at instants: [ContinuousClock.Instant]) {
        let (generation, stale) = state.withLock { s -> (UInt64?, Task<Void, Never>?) in
            guard s.deadlines.add(id, at: instants) else { return (nil, nil) }
            s.sleeperGeneration += 1
            defer { s.sleeper = nil }
            return (s.sleeperGeneration, s.sleeper)
        }
        guard let generation else { return }
        stale?.cancel()
        let task = Task(executorPreference: connection.loopExecutor) { [self] in await sleeper(generation) }
        state.withLock { s in if s.sleeperGeneration == generation { s.sleeper = task } }
    }

    /// The sleeper of `generation`: wakes the follows whose deadlines passed, then sleeps until
    /// the next; ends when none is left or a newer sleeper replaced it.
    private func sleeper(_ generation: UInt64) async {
        while let until = state.withLock({ $0.sleeperGeneration == generation ? $0.deadlines.armed : nil }) {
            do { try await Task.sleep(until: until, clock: .continuous) } catch { return }
            let now = ContinuousClock.now
            let woken = state.withLock { s -> [AsyncStream<Void>.Continuation] in
                guard s.sleeperGeneration == generation else { return [] }
                return s.deadlines.due(at: now).wake.compactMap { s.watchers[$0] }
            }
            woken.forEach { $0.yield() }
        }
    }

    // MARK: serving

    private func changes() -> (AsyncStream<Void>, AsyncStream<Void>.Continuation, UInt64) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            let id = s.nextWatcher
            s.nextWatcher += 1
            s.watchers[id] = continuation
            return id
        }
        return (stream, continuation, id)
    }

    private func changed(_ body: (inout State) -> Void) {
        let list = state.withLock { s in
            body(&s)
            return Array(s.watchers.values)
        }
        list.forEach { $0.yield() }
    }

    private func isEngine(_ sender: String) -> Bool {
        guard let owner = engineOwner() else { return false }
        return owner == sender
    }

    private func kuiserverInterface() -> Interface {
        Interface("org.kde.kuiserver", methods: [
            Method("requiresJobTracker", outputs: [Argument("required", "b")], handler: .inline { [self] call in
                guard isEngine(call.sender) else { return [.boolean(true)] }
                // Counted, no follow woken: what a follow looks at is the views.
                state.withLock { $0.registrations += 1 }
                return [.boolean(false)]
            }),
        ])
    }

    private func serverInterface() -> Interface {
        Interface("org.kde.JobViewServerV2", methods: [
            Method("requestView", inputs: [Argument("desktopEntry", "s", maxBytes: 1024), Argument("capabilities", "i"), Argument("hints", "a{sv}")],
                   outputs: [Argument("jobView", "o")], handler: .inline { [self] call in
                guard isEngine(call.sender) else { throw DBusError(.accessDenied, "only KDE Connect's jobs are followed here") }
                var job = EngineJob()
                Self.apply(call.arguments[2], to: &job)
                var id: UInt64 = 0, evicted: UInt64?
                changed { s in
                    id = s.nextView
                    s.nextView += 1
                    s.views[id] = job
                    s.changed[id] = .now
                    s.exported[id] = call.sender
                    // The oldest view goes beyond the most kept, its object with it (an engine that never ends its jobs grows nothing).
                    if s.views.count > Self.maximumViews, let oldest = s.views.keys.min() {
                        s.views.removeValue(forKey: oldest)
                        s.changed.removeValue(forKey: oldest)
                        if s.exported.removeValue(forKey: oldest) != nil { evicted = oldest }
                    }
                }
                if let evicted { unexportView(evicted) }
                let path = try ObjectPath(Self.viewPrefix + String(id))
                try connection.export([viewInterface(id)], at: path)
                return [.objectPath(path)]
            }),
        ])
    }

    private func viewInterface(_ id: UInt64) -> Interface {
        Interface(Self.viewInterface, methods: [
            Method("update", inputs: [Argument("data", "a{sv}")], handler: .inline { [self] call in
                guard isEngine(call.sender) else { throw DBusError(.accessDenied, "only the engine updates its jobs") }
                changed { s in
                    if s.views[id] != nil {
                        Self.apply(call.arguments[0], to: &s.views[id]!)
                        s.changed[id] = .now
                    }
                }
                return []
            }),
            Method("terminate", inputs: [Argument("errorCode", "u"), Argument("errorMessage", "s", maxBytes: 4096), Argument("hints", "a{sv}")],
                   handler: .inline { [self] call in
                guard isEngine(call.sender) else { throw DBusError(.accessDenied, "only the engine ends its jobs") }
                let code = UInt32(truncatingIfNeeded: call.arguments[0].integer ?? 0)
                let message = Self.reason(code: code, message: String(call.string(1).prefix(512)))
                changed { s in
                    s.views[id]?.end(code: code, message: message)
                    if s.views[id] != nil { s.changed[id] = .now }
                    s.exported.removeValue(forKey: id)
                }
                unexportView(id)
                return []
            }),
        ], signals: [SignalDeclaration("cancelRequested"), SignalDeclaration("suspendRequested"), SignalDeclaration("resumeRequested"),
                     SignalDeclaration("updateRequested")])
    }

    /// Removes view `id`'s object.
    private func unexportView(_ id: UInt64) {
        if let path = try? ObjectPath(Self.viewPrefix + String(id)) { connection.unexport(path) }
    }

    /// The engine's message, or for KDE Connect's own upload errors without one
    /// (`CompositeUploadJob`: `KJob::UserDefinedError` + 0…3) what they mean.
    static func reason(code: UInt32, message: String) -> String {
        guard message.isEmpty else { return message }
        switch code {
        case 100: return "no free port to send from (1739–1764)"
        case 101: return "the request could not be sent to the device"
        case 102: return "the connection to the device broke (error 102)"
        case 103: return "the encrypted connection to the device failed (error 103)"
        default: return ""
        }
    }

    /// Applies an `a{sv}` of the tracker's keys to `job`.
    static func apply(_ value: DBusValue, to job: inout EngineJob) {
        var strings: [String: String] = [:], numbers: [String: UInt64] = [:]
        for (key, v) in value.stringDictionary ?? [:] {
            let inner = v.unwrapped
            if let s = inner.string { strings[key] = String(s.prefix(512)) }
            if let n = inner.integer, n >= 0 { numbers[key] = UInt64(n) }
            if case .uint64(let n) = inner { numbers[key] = n }
            if let b = inner.bool { numbers[key] = b ? 1 : 0 }
        }
        job.apply(strings: strings, numbers: numbers)
    }
}
