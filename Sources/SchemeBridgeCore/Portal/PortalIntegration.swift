import Glibc

/// The permission store's `desktop-used-apps` table as `integrate --portal` needs it: a content
/// type's ``PortalAskState``, read and written (the command line's adapter speaks
/// `org.freedesktop.impl.portal.PermissionStore`).
public protocol PortalPermissionStore {
    /// The type's state now.
    func alwaysAsk(_ type: String) throws(PortalIntegrationError) -> PortalAskState
    /// Makes the type's state `state`, keeping the entry's app permissions and its data's other
    /// keys. `.noEntry`: the entry goes when no app permission is left in it (else `.noData`).
    /// Never called with `.unsupported`.
    func setAlwaysAsk(_ type: String, _ state: PortalAskState) throws(PortalIntegrationError)
    /// The app's permission in the type's entry now.
    func permission(_ type: String, app: String) throws(PortalIntegrationError) -> PortalAppPermission
    /// Makes the app's permission `permission`, leaving the entry's data and other apps alone.
    /// `.none`: the app's permission goes; `.noEntry`: it goes, and so does the entry when
    /// nothing is left in it (no app permission, no data).
    func setPermission(_ type: String, app: String, _ permission: PortalAppPermission) throws(PortalIntegrationError)
}

/// Why `integrate --portal` could not go on.
public struct PortalIntegrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// `schemebridge integrate enable|disable|status --portal` (issue 40): SchemeBridge as the
/// portal's `AppChooser` for this user (``PortalSelection``: `portals.conf` from 1.17, the
/// portal's `XDG_CURRENT_DESKTOP` before), and the content types it routes marked always-ask in
/// the permission store, so that the frontend asks it on every open of those types instead of
/// deciding by itself (a default, one candidate, or the same app chosen three times).
///
/// Crash-safe as `integrate` is: the record (``PortalIntegrationRecord``) is written atomically
/// with every change *before* the first is made (phase `enabling`), then the changes, then the
/// record again (`enabled`); `disable` marks it `disabling`, undoes the changes in reverse and
/// removes it. Each change is made only from its recorded `before` and undone only from its
/// `after`, so finishing or undoing again after a SIGKILL anywhere does what is left and nothing
/// else; a change someone else made since is left alone (and reported). The next command finishes
/// what was stopped: an `enabling` record is finished by `status` and `enable`, and undone by
/// `disable`; a `disabling` one is finished by any.
public struct PortalIntegration {
    /// The record's path: `$XDG_CONFIG_HOME/schemebridge/portal-integration`.
    public let recordPath: String
    let store: any PortalPermissionStore
    /// Called after each durable step (the record written, a change made or undone), numbered
    /// from 1: the tests stop the process there.
    let step: (Int) -> Void
    private var steps = 0

    public init(directories: XDGDirectories, store: any PortalPermissionStore, step: @escaping (Int) -> Void = { _ in }) {
        recordPath = Self.recordPath(directories: directories)
        self.store = store
        self.step = step
    }

    /// What a command did, and what it found.
    public struct Outcome: Sendable, Equatable {
        /// Changes made (enable) or undone (disable), by ``PortalChange/key``.
        public var done: [String] = []
        /// Changes found changed by someone else since: left alone.
        public var changed: [String] = []
        /// Changes undone by `enable` because they are no longer wanted (routes changed).
        public var undone: [String] = []
    }

    /// The content types `integrate --portal` marks always-ask: those of the `[Routes]` lines,
    /// the remembered choices and the schemes `integrate` routes through SchemeBridge
    /// (`x-scheme-handler/SCHEME` for a scheme), sorted; picks (`pick:…`) are not the portal's.
    public static func alwaysAskTypes(routes: [Route], choices: [Choice], routedSchemes: [String]) -> [String] {
        var types = Set<String>()
        for subject in routes.map(\.subject) + choices.map(\.subject) + routedSchemes {
            guard let s = ChoiceSubject.normalized(subject), !ChoiceSubject.isPick(s) else { continue }
            types.insert(ChoiceSubject.isContentType(s) ? s : "x-scheme-handler/" + s)
        }
        return types.sorted()
    }

    // MARK: the commands

    /// `$XDG_CONFIG_HOME/schemebridge/portal-integration`.
    public static func recordPath(directories: XDGDirectories) -> String {
        XDGDirectories.join(XDGDirectories.join(directories.configHome, "schemebridge"), "portal-integration")
    }

    /// The record as it is on disk (nil: nothing done).
    public func record() throws(PortalIntegrationError) -> PortalIntegrationRecord? { try Self.record(at: recordPath) }

    /// The record at `recordPath` (nil: none).
    public static func record(at recordPath: String) throws(PortalIntegrationError) -> PortalIntegrationRecord? {
        guard FileSystem.info(recordPath).kind != .missing else { return nil }
        let bytes: [UInt8]
        do throws(FileSystemError) { bytes = try FileSystem.readFile(recordPath) } catch { throw PortalIntegrationError("cannot read \(recordPath): \(error.message)") }
        guard let record = PortalIntegrationRecord.decode(bytes) else {
            throw PortalIntegrationError("\(recordPath) is not a record of `integrate --portal`; remove it to start over (what it did is then not undone)")
        }
        return record
    }

    /// Makes `files` (``PortalSelection/files(way:directories:currentDesktop:portalsDirectory:unitDirectories:sysconfDirectory:dataDirectory:)``),
    /// marks `types` always-ask and publishes `routes` (``PortalRoutePublishing``); what is
    /// recorded already is kept and not made again. A type already always-ask is not recorded
    /// (nothing to undo); nor one whose data the portal would not read (left alone); nor a route
    /// the portal applies already. Run again, it follows `routes`: a published route no longer
    /// wanted (or now to another handler) is undone, and so is the always-ask mark of a type whose
    /// routes are now published; a type always-ask before SchemeBridge marked it stays (reported).
    public mutating func enable(way: PortalSelection.Way, desktops: String, files: [PortalChange], types: [String],
                                routes: [PortalPublishedRoute] = []) throws(PortalIntegrationError) -> Outcome {
        var record = try finish() ?? PortalIntegrationRecord(phase: .enabled, way: way, desktops: desktops, changes: [])
        var outcome = Outcome()
        // What is no longer wanted goes first (a route to another handler has the same key).
        let wanted = Set(routes)
        let publishedTypes = Set(routes.map(\.type))
        let obsolete = record.changes.filter {
            switch $0 {
            case .route(let route, _): !wanted.contains(route)
            case .alwaysAsk(let type, _): publishedTypes.contains(type)
            default: false
            }
        }.map(\.key)
        if !obsolete.isEmpty {
            record.removing = obsolete
            try save(record)
            outcome = try removeMarked(&record)
        }
        let known = Set(record.changes.map(\.key))
        var new = files.filter { !known.contains($0.key) }
        for type in types where !known.contains("always-ask " + type) {
            let now = try store.alwaysAsk(type)
            if now == .unsupported { outcome.changed.append("always-ask " + type) }
            if now == .asked || now == .unsupported { continue }
            new.append(.alwaysAsk(type: type, before: now))
        }
        for type in publishedTypes.sorted() {
            // Marked by someone else: the portal asks for the type whatever the entry says.
            if try store.alwaysAsk(type) == .asked { outcome.changed.append("always-ask " + type) }
        }
        for route in routes where !known.contains(PortalChange.route(route, before: .none).key) {
            let now = try store.permission(route.type, app: route.app)
            if now.appliedHandler == route.storedHandler { continue }
            new.append(.route(route, before: now))
        }
        guard !new.isEmpty else { return outcome }
        record.changes += new
        record.phase = .enabling
        if new.contains(where: { if case .file = $0 { return true }; if case .directory = $0 { return true }; return false }) { (record.way, record.desktops) = (way, desktops) }
        try save(record)
        for change in new {
            if try make(change) { outcome.done.append(change.key) } else { outcome.changed.append(change.key) }
        }
        record.phase = .enabled
        try save(record)
        return outcome
    }

    /// Undoes the changes `record.removing` names, drops them and saves the record.
    private mutating func removeMarked(_ record: inout PortalIntegrationRecord) throws(PortalIntegrationError) -> Outcome {
        var outcome = Outcome()
        let keys = Set(record.removing)
        for change in record.changes.reversed() where keys.contains(change.key) {
            switch try unmake(change) {
            case true?: outcome.undone.append(change.key)
            case false?: outcome.changed.append(change.key)
            case nil: break
            }
        }
        record.changes.removeAll { keys.contains($0.key) }
        record.removing = []
        try save(record)
        return outcome.reversedOrder()
    }

    /// Undoes every recorded change, in reverse; the record then goes.
    public mutating func disable() throws(PortalIntegrationError) -> Outcome {
        guard var record = try self.record() else { return Outcome() }
        if record.phase != .disabling {
            record.phase = .disabling
            try save(record)
        }
        return try undo(record)
    }

    /// The record once a command stopped half-way is finished (nil: nothing done), and the
    /// recorded changes that are no longer as written.
    public mutating func status() throws(PortalIntegrationError) -> (record: PortalIntegrationRecord?, changed: [String]) {
        guard let record = try finish() else { return (nil, []) }
        var changed: [String] = []
        for change in record.changes {
            if try !isMade(change) { changed.append(change.key) }
        }
        return (record, changed)
    }

    // MARK: the steps

    /// Finishes what a command stopped half-way left: an `enabling` record is made whole, a
    /// `disabling` one undone (`disable` undoes an `enabling` one itself). Returns the record
    /// left (nil: none).
    private mutating func finish() throws(PortalIntegrationError) -> PortalIntegrationRecord? {
        guard var record = try self.record() else { return nil }
        if !record.removing.isEmpty && record.phase != .disabling { _ = try removeMarked(&record) }
        switch record.phase {
        case .enabled:
            return record
        case .disabling:
            _ = try undo(record)
            return nil
        case .enabling:
            for change in record.changes { _ = try make(change) }
            record.phase = .enabled
            try save(record)
            return record
        }
    }

    private mutating func undo(_ record: PortalIntegrationRecord) throws(PortalIntegrationError) -> Outcome {
        var outcome = Outcome()
        for change in record.changes.reversed() {
            switch try unmake(change) {
            case true?: outcome.done.append(change.key)
            case false?: outcome.changed.append(change.key)
            case nil: break
            }
        }
        if unlink(recordPath) != 0 && errno != ENOENT { throw PortalIntegrationError("cannot remove \(recordPath): \(String(cString: strerror(errno)))") }
        tick()
        return outcome.reversedOrder()
    }

    /// Makes `change` when it is as it was before; true when it is made (now or already),
    /// false when someone else changed it (left alone).
    private mutating func make(_ change: PortalChange) throws(PortalIntegrationError) -> Bool {
        switch change {
        case .directory(let path):
            if FileSystem.info(path).kind == .directory { return true }
            if mkdir(path, 0o755) != 0 && errno != EEXIST { throw PortalIntegrationError("cannot create \(path): \(String(cString: strerror(errno)))") }
        case .file(let path, let before, let after):
            let now = try read(path)
            if now == after { return true }
            guard now == before else { return false }
            try write(after, to: path)
        case .alwaysAsk(let type, let before):
            let now = try store.alwaysAsk(type)
            if now == .asked { return true }
            guard now == before else { return false }
            try store.setAlwaysAsk(type, .asked)
        case .route(let route, let before):
            let now = try store.permission(route.type, app: route.app)
            if now.appliedHandler == route.storedHandler { return true }
            guard now == before else { return false }
            try store.setPermission(route.type, app: route.app, .strings(route.permission))
        }
        tick()
        return true
    }

    /// Undoes `change` when it is as made; true when undone, false when someone else changed it
    /// since (left alone), nil when it was not there (never made, or undone already).
    private mutating func unmake(_ change: PortalChange) throws(PortalIntegrationError) -> Bool? {
        switch change {
        case .directory(let path):
            guard FileSystem.info(path).kind == .directory else { return nil }
            // Not empty: something else was put there since; it stays.
            guard rmdir(path) == 0 else { return false }
        case .file(let path, let before, let after):
            let now = try read(path)
            if now == before { return nil }
            guard now == after else { return false }
            try write(before, to: path)
        case .alwaysAsk(let type, let before):
            let now = try store.alwaysAsk(type)
            if now == before { return nil }
            guard now == .asked else { return false }
            try store.setAlwaysAsk(type, before)
        case .route(let route, let before):
            let now = try store.permission(route.type, app: route.app)
            if now == before { return nil }
            // Still our handler, whatever count the portal wrote since: ours to give back.
            guard now.handler == route.storedHandler else { return false }
            try store.setPermission(route.type, app: route.app, before)
        }
        tick()
        return true
    }

    /// Whether `change` is as made.
    private func isMade(_ change: PortalChange) throws(PortalIntegrationError) -> Bool {
        switch change {
        case .directory(let path): FileSystem.info(path).kind == .directory
        case .file(let path, _, let after): try read(path) == after
        case .alwaysAsk(let type, _): try store.alwaysAsk(type) == .asked
        case .route(let route, _): try store.permission(route.type, app: route.app).appliedHandler == route.storedHandler
        }
    }

    private mutating func tick() {
        steps += 1
        step(steps)
    }

    private mutating func save(_ record: PortalIntegrationRecord) throws(PortalIntegrationError) {
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(FileSystem.dirname(recordPath))
            try FileSystem.writeAtomically(record.encoded(), to: recordPath, defaultMode: 0o600)
        } catch {
            throw PortalIntegrationError("cannot write \(recordPath): \(error.message)")
        }
        tick()
    }

    /// The file's bytes (through symbolic links); nil when there is none.
    private func read(_ path: String) throws(PortalIntegrationError) -> [UInt8]? {
        guard FileSystem.info(path).kind != .missing else { return nil }
        do throws(FileSystemError) { return try FileSystem.readFile(path) } catch { throw PortalIntegrationError("cannot read \(path): \(error.message)") }
    }

    /// Writes `bytes` to `path` atomically (through symbolic links), or removes it (nil).
    private func write(_ bytes: [UInt8]?, to path: String) throws(PortalIntegrationError) {
        do throws(FileSystemError) {
            let target = try FileSystem.resolveWriteTarget(path)
            if let bytes {
                try FileSystem.writeAtomically(bytes, to: target)
            } else if unlink(target) != 0 && errno != ENOENT {
                throw FileSystemError.errno(target, "cannot remove")
            }
        } catch {
            throw PortalIntegrationError("cannot change \(path): \(error.message)")
        }
    }
}

extension PortalIntegration.Outcome {
    /// The lists in the order the changes were made.
    func reversedOrder() -> Self { Self(done: done.reversed(), changed: changed.reversed(), undone: undone.reversed()) }
}
