import CLinux
import Glibc
import LinuxSystem
import Synchronization

extension PortalRoutePublishing {
    /// The plan for the user's files now: `[Routes]` of the config files, the remembered choices,
    /// the schemes `integrate` routes (`routedSchemes`), the handlers `registry` knows, and whether
    /// each shows a launch image (none when `[General] LaunchImages` is off).
    public static func plan(directories: XDGDirectories, registry: Registry, routedSchemes: [String]) -> Plan {
        let config = PolicyConfig.read(PolicyStore.defaultPaths(directories: directories)).config
        let images = LaunchImageIndex()
        let imagesOn = config?.launchImages ?? true
        return plan(routes: config?.routes ?? [], choices: ChoiceStore(path: ChoiceStore.defaultPath(directories: directories)).all,
                    routedSchemes: routedSchemes, entry: { registry.entry(id: $0) },
                    showsLaunchImage: { entry, scheme in imagesOn && images.image(for: entry, scheme: scheme, scale: 1) != nil })
    }
}

extension PortalIntegration {
    /// Follows the plan while integration is on (issue 40: the service re-syncs when `[Routes]`
    /// or the remembered choices change): the routes the portal applies become `plan.published`
    /// — a route no longer wanted is given back as it was, a new one written — and the types of
    /// `plan.alwaysAsk` are marked, as are the types whose routes the portal applied and no longer
    /// does (the portal asks SchemeBridge for them again). Through the same record as `enable`,
    /// so a SIGKILL anywhere leaves what `disable` undoes. Files are not touched. Nil (nothing
    /// done) when integration is not on.
    public mutating func resync(_ plan: PortalRoutePublishing.Plan) throws(PortalIntegrationError) -> Outcome? {
        guard let record = try record(), record.phase != .disabling else { return nil }
        let wanted = Set(plan.published.map(\.type))
        // A route being removed when a command stopped is still among the changes here.
        let unpublished = record.changes.compactMap { c -> String? in if case .route(let r, _) = c, !wanted.contains(r.type) { r.type } else { nil } }
        // The routes go first, then the marks (each read as the route left the entry): a SIGKILL
        // in between leaves the type to the portal's own rules until `enable --portal` is run
        // again, and everything for `disable` to give back.
        return try enable(way: record.way, desktops: record.desktops, files: [], types: Set(plan.alwaysAsk + unpublished).sorted(), routes: plan.published)
    }

    /// Runs `body` holding the record's lock (`flock` of its directory, `$XDG_CONFIG_HOME/schemebridge`,
    /// so no file is left behind): the command line and the service never change the record at once.
    public static func locked<R>(directories: XDGDirectories, _ body: () throws -> R) throws -> R {
        let path = FileSystem.dirname(recordPath(directories: directories))
        // No directory: no record for the service to follow either (the command makes both).
        guard FileSystem.info(path).kind == .directory else { return try body() }
        let directory: FileDescriptor
        do { directory = try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY) } catch {
            throw PortalIntegrationError("cannot open \(path): \(error)")
        }
        try? directory.lockExclusively()
        return try body()
    }
}

/// Follows `$XDG_CONFIG_HOME/schemebridge/` (inotify, on a thread of its own) and calls `work`
/// after the config file or the remembered choices change — once for a burst of changes, never
/// two at once; ``request()`` asks for a run too (the service's config reload,
/// ``PolicyStore/onChange(_:)``). The service re-syncs the portal's published routes so
/// (``PortalIntegration/resync(_:)``): the portal's own path never reaches SchemeBridge, so no
/// lookup would notice an edit.
public final class PortalRouteFollower: Sendable {
    /// The directory followed.
    public let directory: String
    /// The file names there whose change calls `work`.
    public let names: Set<String>
    private let work: @Sendable () -> Void
    /// Wakes the follower's thread; nil when the kernel gave no eventfd (nothing follows then).
    private let wake: FileDescriptor?
    private let stopped = Atomic<Bool>(false)
    private let thread = Mutex<OSThread?>(nil)

    /// Follows `config` and `choices` in `directories`' `$XDG_CONFIG_HOME/schemebridge` (made
    /// when missing: inotify watches what exists).
    public init(directories: XDGDirectories, work: @escaping @Sendable () -> Void) {
        directory = XDGDirectories.join(directories.configHome, "schemebridge")
        names = ["config", "choices"]
        self.work = work
        wake = try? FileDescriptor.eventCounter()
    }

    /// Starts following, and runs `work` once (what changed while the service was not running);
    /// false (nothing follows) when the directory cannot be watched.
    @discardableResult
    public func start() -> Bool {
        try? FileSystem.makeDirectories(directory)
        guard let instance = try? FileDescriptor.inotifyInstance(), wake != nil else { return false }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
        guard inotify_add_watch(instance.rawValue, directory, mask) >= 0 else { return false }
        let started = OSThread.start(name: "sb-portal-sync", owning: instance) { [self] fd in loop(fd.rawValue) }
        thread.withLock { $0 = started }
        request()
        return started != nil
    }

    /// Asks for a run of `work` (soon, on the follower's thread).
    public func request() {
        wake?.signalEvent()
    }

    /// Stops following (a run under way finishes first).
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        request()
        thread.withLock { $0 }?.join()
    }

    private func loop(_ fd: Int32) {
        let wake: Int32 = switch self.wake { case .some(let fd): fd.rawValue; case .none: -1 }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .relaxed) {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) > 0 else { continue }
            var due = drain(wake, &buffer) > 0
            if drain(fd, &buffer, names: names) { due = true }
            guard due, !stopped.load(ordering: .relaxed) else { continue }
            // A burst of changes (an editor's temporary file, then its rename) is one run.
            var quiet = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            while poll(&quiet, 1, 50) > 0 { _ = drain(fd, &buffer, names: names) }
            work()
        }
    }

    /// Reads what is waiting on `fd`; returns the bytes read.
    private func drain(_ fd: Int32, _ buffer: inout [UInt8]) -> Int {
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return total }
            total += n
        }
    }

    /// Reads inotify's events on `fd`; whether one names a file of `names` (or the queue overflowed).
    private func drain(_ fd: Int32, _ buffer: inout [UInt8], names: Set<String>) -> Bool {
        var hit = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return hit }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + 16 <= n {
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { hit = true }
                    if len > 0, offset + 16 + len <= n {
                        let bytes = raw[(offset + 16)..<(offset + 16 + len)]
                        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
                        if let name = String(validating: bytes[bytes.startIndex..<end], as: UTF8.self), names.contains(name) { hit = true }
                    }
                    offset += 16 + len
                }
            }
        }
    }
}

/// What the service does on each run of its ``PortalRouteFollower``: while `integrate --portal`
/// is on, ``PortalIntegration/resync(_:)`` with the plan of the files now, under the record's
/// lock; the outcome is logged (the changes by key: a test waits for that line).
public enum PortalRouteResync {
    /// The service's follower of `registry`'s user files, each run ``run(directories:registry:routedSchemes:store:log:)``.
    public static func follower(registry: Registry, routedSchemes: @escaping @Sendable () -> [String],
                                store: @escaping @Sendable () throws -> any PortalPermissionStore,
                                log: @escaping @Sendable (ServiceLogLevel, String) -> Void) -> PortalRouteFollower {
        PortalRouteFollower(directories: registry.directories) {
            run(directories: registry.directories, registry: registry, routedSchemes: routedSchemes, store: store, log: log)
        }
    }

    /// One run. `store`: the permission store (its bus adapter, made only when integration is
    /// on); `routedSchemes`: what `integrate` routes now.
    public static func run(directories: XDGDirectories, registry: Registry, routedSchemes: () -> [String],
                           store: () throws -> any PortalPermissionStore, log: (ServiceLogLevel, String) -> Void) {
        let recordPath = PortalIntegration.recordPath(directories: directories)
        guard FileSystem.info(recordPath).kind != .missing else { return }
        do {
            let outcome = try PortalIntegration.locked(directories: directories) { () throws -> PortalIntegration.Outcome? in
                var integration = PortalIntegration(directories: directories, store: try store())
                return try integration.resync(PortalRoutePublishing.plan(directories: directories, registry: registry, routedSchemes: routedSchemes()))
            }
            guard let outcome else { return }
            let changes = outcome.undone.map { "undone: \($0)" } + outcome.done.map { "changed: \($0)" } + outcome.changed.map { "left alone: \($0)" }
            guard !changes.isEmpty else { return }
            log(outcome.changed.isEmpty ? .info : .notice, "portal: re-synced the routes the portal applies: " + changes.joined(separator: "; "))
        } catch {
            log(.warning, "portal: cannot re-sync the routes the portal applies: \((error as? PortalIntegrationError)?.message ?? "\(error)")")
        }
    }
}
