import Synchronization
import Glibc

/// Why ``Registry/setDefault(scheme:desktopID:)`` refused or failed.
public enum SetDefaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scheme string is not a valid scheme.
    case invalidScheme(SchemeURLError)
    /// The desktop ID is not an installed, eligible handler of the scheme (the service maps
    /// this to `InvalidHandler`).
    case invalidHandler(desktopID: DesktopID, scheme: String, reason: String)
    /// `mimeapps.list` could not be written; the old file is intact.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidScheme(let e): return e.description
        case .invalidHandler(let id, let scheme, let reason):
            return "'\(id)' cannot be the default for '\(scheme)': \(reason)"
        case .writeFailed(let path, let reason):
            return "cannot write \(path): \(reason); the file was left as it was"
        }
    }
}

/// The live index of URL-scheme handlers.
///
/// Built once by scanning every applications directory and reading every `mimeapps.list`, then
/// kept current from inotify on a background thread: a changed, new, removed or renamed desktop
/// file is re-read alone; a new subdirectory or a directory that appears later is scanned; a
/// changed list is re-read. After each change only the schemes it can affect are re-resolved,
/// and those whose handlers or default changed are published on every ``changes()`` stream.
///
/// Lookups (``handlers(forScheme:)``, ``defaultHandler(forScheme:)``, ``entry(id:)``,
/// ``schemes``) are dictionary probes under a mutex: no file access, no scan, independent of the
/// number of installed applications — cheap enough for a D-Bus dispatch thread.
///
/// The environment is passed in explicitly; the process environment is never read.
public final class Registry: Sendable {
    /// The directories in use.
    public let directories: XDGDirectories
    /// ``directories``' applications directories, computed once (the environment is fixed): the
    /// check before each launch finds an entry's directory here (`RegistryFileCheck.swift`).
    let applicationsDirectories: [ApplicationsDirectory]
    /// The locale used for `Name`/`Icon`.
    public let locale: LocaleMatcher
    /// The shared-mime-info database whose aliases content-type lookups resolve
    /// (``resolution(forType:)``); nil: a type is only ever its own name.
    public let contentTypes: ContentTypeDatabase?
    /// Which applications directories are protected (may claim reserved schemes, and whose
    /// association lists count for them).
    public let trust: TrustedDirectories

    let scanner: AppScanner
    /// Desktop files read before a launch and found to say what the registry held (`RegistryFileCheck.swift`).
    let verifiedFiles = VerifiedFiles()
    let state: Mutex<RegistryModel>
    /// Serializes writers (the watcher thread, `setDefault`, `rescan`) across their unlocked
    /// file-reading phases.
    let writer = Mutex(())
    private let subscribers = Mutex(Subscribers())
    private let warningLog = WarningLog()
    private let warningHandler: (@Sendable (RegistryWarning) -> Void)?
    private let watcher: DirectoryWatcher?
    /// The on-disk index (nil when disabled) and the thread that rewrites it.
    let indexStore: RegistryIndexStore?
    private let indexWriter: RegistryIndexWriter?
    /// ``resolvedPrograms()``'s map, dropped at every change (its generation moves as
    /// ``baseNameMap``'s does).
    private let programMap = Mutex<(generation: UInt64, map: [String: [String]]?)>((0, nil))
    /// Program base name → the eligible IDs whose `Exec` program has it, built on first use
    /// after a change (``applicationIDs(executing:)`` asks it for every process the walk behind
    /// our CLI meets: no scan of every entry per question). The generation moves at each change,
    /// so a map built from the state before a change is never kept after it.
    let baseNameMap = Mutex<(generation: UInt64, map: [String: [String]]?)>((0, nil))
    let indexState = Mutex(IndexState())

    /// How many warnings ``recentWarnings`` keeps.
    public static let warningLogLimit = 200

    private struct Subscribers: Sendable {
        var next = 0
        var continuations: [Int: AsyncStream<Set<String>>.Continuation] = [:]
        /// The streams that also hear of entries declaring app links (``changes(appLinks:)``).
        var appLinkStreams: Set<Int> = []
        /// ``RegistryModel/appLinkGeneration`` when last published.
        var appLinkGeneration = 0
        var closed = false
    }

    /// Builds the index.
    /// - Parameters:
    ///   - environment: the environment to read XDG variables, `PATH`, locale and
    ///     `XDG_CURRENT_DESKTOP` from.
    ///   - watch: start the inotify watcher (default true). Without it the index only changes
    ///     through ``rescan()`` and ``setDefault(scheme:desktopID:)``.
    ///   - index: where the on-disk index of the desktop files lives (default: the cache
    ///     directory of `environment`). When every signature in it still matches, start-up
    ///     reads it instead of parsing the desktop files; otherwise it scans, as without one.
    ///   - reservedSchemes: the reserved schemes (``Policy/reservedSchemes``; the secure variant
    ///     of each is reserved too). For them the association lists of applications directories
    ///     the user can write are ignored (see ``useReservedSchemes(_:)``).
    ///   - contentTypes: the content types whose aliases name the same type (an entry listing
    ///     `text/x-markdown` handles `text/markdown`); nil: every name is a type of its own.
    ///   - warningHandler: called (on the calling or the watcher thread) for each problem found.
    public convenience init(environment: [String: String], watch: Bool = true, index: RegistryIndexLocation = .automatic,
                            reservedSchemes: Set<String> = Policy.defaultReservedSchemes, contentTypes: ContentTypeDatabase? = nil,
                            warningHandler: (@Sendable (RegistryWarning) -> Void)? = nil) {
        self.init(environment: environment, watch: watch ? DirectoryWatcher.Options() : nil, index: index,
                  reservedSchemes: reservedSchemes, contentTypes: contentTypes, warningHandler: warningHandler)
    }

    /// ``init(environment:watch:index:reservedSchemes:contentTypes:warningHandler:)`` with the
    /// watcher's options (nil: no watcher), for tests that make inotify fail.
    init(environment: [String: String], watch: DirectoryWatcher.Options?, index: RegistryIndexLocation = .automatic,
         reservedSchemes: Set<String> = Policy.defaultReservedSchemes, contentTypes: ContentTypeDatabase? = nil,
         warningHandler: (@Sendable (RegistryWarning) -> Void)? = nil) {
        let xdg = XDGDirectories(environment: environment)
        self.directories = xdg
        let applications = xdg.applicationsDirectories
        self.applicationsDirectories = applications
        self.locale = LocaleMatcher(environment: environment)
        self.contentTypes = contentTypes
        self.scanner = AppScanner(locale: locale, searchPath: xdg.executableSearchPath)
        self.warningHandler = warningHandler
        let trust = TrustedDirectories(userApplications: XDGDirectories.join(xdg.dataHome, "applications"),
                                       userDirectories: [xdg.home, xdg.dataHome])
        self.trust = trust
        let untrusted = applications.indices.filter { !trust.isTrusted(applications[$0].path) }
        self.state = Mutex(RegistryModel(xdg: xdg, reservedRule: ReservedSchemeRule(reservedSchemes: reservedSchemes,
                                                                                    untrustedDirectories: Set(untrusted))))
        let store = RegistryIndexStore(
            location: index, environment: environment,
            configurationKey: RegistryIndexCodec.configurationKey(directories: applications, locale: locale))
        self.indexStore = store
        let box = RegistryReference()
        self.indexWriter = store == nil ? nil : RegistryIndexWriter { box.registry?.saveIndex() }
        if let watch {
            let log = self.warningLog
            let config = DirectoryWatcher.Configuration(
                applicationsDirectories: applications.map(\.path),
                mimeDirectories: xdg.mimeappsDirectories,
                listNames: Set(xdg.mimeappsFileNames))
            self.watcher = DirectoryWatcher(configuration: config, options: watch) { w in
                Registry.record(w, log: log, handler: warningHandler)
            }
        } else {
            self.watcher = nil
        }
        box.registry = self
        // Watch first, then scan: nothing written in between is missed. (Directories the index
        // knows are watched without listing them; the build checks them afterwards.)
        let started = ContinuousClock.now
        let prepared = prepareIndex()
        watcher?.armAll(knownTrees: prepared.knownTrees)
        let startup = writer.withLock { _ in buildInitial(prepared, started: started) }
        indexState.withLock { $0.startup = startup }
        if let reason = startup.indexRejection, let store {
            Registry.record(RegistryWarning(path: store.path, message: "registry index not used (\(reason)); the desktop files were read"),
                            log: warningLog, handler: warningHandler)
        }
        if startup.indexOutdated { indexWriter?.schedule(after: Registry.indexWriteDelay) }
        watcher?.start { [weak self] changes in
            self?.apply(changes)
        }
    }

    deinit {
        close()
    }

    /// Stops the watcher thread and ends every ``changes()`` stream. Lookups keep working on the
    /// last state. Idempotent.
    public func close() {
        watcher?.stop()
        indexWriter?.stop()
        let continuations = subscribers.withLock { s -> [AsyncStream<Set<String>>.Continuation] in
            s.closed = true
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for c in continuations { c.finish() }
    }

    // MARK: lookups

    /// The eligible handlers of `scheme` (any case), the default first; empty for an unknown or
    /// invalid scheme.
    public func handlers(forScheme scheme: String) -> [DesktopID] {
        resolution(forScheme: scheme).handlers
    }

    /// The default handler of `scheme`, or nil.
    public func defaultHandler(forScheme scheme: String) -> DesktopID? {
        resolution(forScheme: scheme).defaultHandler
    }

    /// The handlers and default of `scheme` in one probe.
    public func resolution(forScheme scheme: String) -> HandlerResolution {
        let key = Registry.lowercasedASCII(scheme)
        return state.withLock { m in
            if let frozen = m.frozen { return frozen.resolution(forScheme: key) }
            return m.resolved[key] ?? .none
        }
    }

    /// The effective entry with desktop ID `id` when it is an eligible application (any
    /// application, whether or not it handles a scheme); nil otherwise.
    public func entry(id desktopID: DesktopID) -> DesktopEntry? {
        let id = desktopID.fileName
        return state.withLock { m in
            if let frozen = m.frozen { return frozen.entry(id: id) }
            return m.effective[id]
        }
    }

    /// Puts `reservedSchemes` in force (the config file changed): the schemes whose resolution
    /// depends on it are resolved again and published on ``changes()``. For a reserved scheme
    /// (or its secure variant), the `mimeapps.list` files of applications directories the user
    /// can write (``trust``) are ignored — their added and removed associations and their
    /// defaults; the config-dir lists still count. Cheap when nothing changed (one comparison).
    public func useReservedSchemes(_ reservedSchemes: Set<String>) {
        if state.withLock({ $0.reservedRule.reservedSchemes == reservedSchemes }) { return }
        let changed = writer.withLock { _ -> Set<String>? in
            if state.withLock({ $0.reservedRule.reservedSchemes == reservedSchemes }) { return nil }
            // Served from the index, the model is built first, under the rule its answers had.
            let affected = state.withLock { $0.schemesAffected(reserving: reservedSchemes) }
            if !affected.isEmpty { materializeLocked() }
            return state.withLock { m in
                m.reservedRule.reservedSchemes = reservedSchemes
                return m.resolve(affected)
            }
        }
        guard let changed else { return }
        publish(changed)
        // The index's answers are stored under the rule.
        scheduleIndexWrite()
    }

    /// Whether a `mimeapps.list` in a config directory (`$XDG_CONFIG_HOME`, `$XDG_CONFIG_DIRS`,
    /// desktop-specific or not) names `id` for `scheme` in `[Default Applications]` or
    /// `[Added Associations]`: the user (or the admin) chose it explicitly.
    public func isNamedInConfigList(_ desktopID: DesktopID, forScheme scheme: String) -> Bool {
        let id = desktopID.fileName
        let key = Registry.lowercasedASCII(scheme)
        return state.withLock { m in
            m.levels.contains { level in
                level.applicationsIndex == nil && level.lists.contains { list in
                    (list.defaults[key]?.contains(id) ?? false) || (list.added[key]?.contains(id) ?? false)
                }
            }
        }
    }

    /// The application entries with desktop ID `id` that its effective entry masks (same ID in
    /// lower-precedence applications directories), highest first. Ineligible ones are included:
    /// what matters is what the masked file declares.
    public func maskedEntries(id desktopID: DesktopID) -> [DesktopEntry] {
        let id = desktopID.fileName
        // Served from the index, its masked table names them for an eligible entry (no model is
        // built); for another ID the records are read.
        if let frozen = state.withLock({ $0.frozen }) {
            if let masked = frozen.maskedEntries(id: id) { return masked }
            writer.withLock { _ in materializeLocked() }
        }
        return state.withLock { m in
            guard var rest = m.idDirs[id] else { return [] }
            rest &= rest - 1  // drop the effective (highest) directory
            var out: [DesktopEntry] = []
            while rest != 0 {
                let dir = rest.trailingZeroBitCount
                rest &= rest - 1
                if let rel = m.appDirs[dir].path(for: id), let record = m.appDirs[dir].files[rel],
                   case .application(let e, _) = record.state { out.append(e) }
            }
            return out
        }
    }

    /// The eligible applications whose `Exec` program is the executable at `path` (compared
    /// after resolving `PATH` and symlinks, on both sides: `Exec=python3` runs `python3.11`).
    /// First the entries whose program has the same base name (one probe of a map, or of the
    /// on-disk index's program table while the registry is served from it); only when none
    /// matches, a map from the resolved programs that may be symbolic links, built once and kept
    /// until the registry changes. Meant for identifying a new caller, off the shared threads.
    public func applicationIDs(executing path: String) -> [DesktopID] {
        guard let target = FileSystem.realPath(path) else { return [] }
        let base = target.split(separator: "/").last.map(String.init) ?? target
        let ids = idsRunningPrograms(named: base)
        let candidates: [DesktopEntry] = ids.isEmpty ? [] : state.withLock { m in
            ids.compactMap { id in m.frozen.map { $0.entry(id: id) } ?? m.effective[id] }
        }
        let direct = candidates.filter { e in
            e.execProgram.flatMap { ProgramLookup.find($0, searchPath: directories.executableSearchPath) }.flatMap(FileSystem.realPath) == target
        }
        if !direct.isEmpty { return direct.map(\.id).sorted() }
        return (resolvedPrograms()[target] ?? []).map { DesktopID(fileName: $0) }
    }

    /// The entries changed (or are served another way): ``baseNameMap`` is built again when next asked.
    func forgetProgramNames() {
        baseNameMap.withLock { $0 = ($0.generation &+ 1, nil) }
        programMap.withLock { $0 = ($0.generation &+ 1, nil) }
    }

    /// The eligible IDs whose `Exec` program's base name is `base`: served from the index, a
    /// search of its program table; else ``baseNameMap``.
    private func idsRunningPrograms(named base: String) -> [String] {
        if let frozen = state.withLock({ $0.frozen }) { return frozen.ids(runningProgramNamed: base) }
        let (generation, cached) = baseNameMap.withLock { ($0.generation, $0.map) }
        if let cached { return cached[base] ?? [] }
        let programs: [(id: String, program: String)] = state.withLock { m in
            m.effective.values.compactMap { e in e.execProgram.map { (e.idText, $0) } }
        }
        var map: [String: [String]] = [:]
        for candidate in programs {
            let name = candidate.program.split(separator: "/").last.map(String.init) ?? candidate.program
            map[name, default: []].append(candidate.id)
        }
        baseNameMap.withLock { if $0.generation == generation { $0.map = map } }
        return map[base] ?? []
    }

    /// Resolved program path → the eligible IDs running it (sorted), for `Exec`s that name a
    /// program through a symlink of another name (`Exec=tool` runs `tool-1.2`). Built on first use
    /// after a change. Only programs that are symbolic links are resolved
    /// (``ProgramLookup/mayBeSymlink(_:searchPath:listings:)``, a listing per directory): any other
    /// program's real path keeps its name, so ``idsRunningPrograms(named:)`` already found it. A
    /// walk of every entry's program was most of a warm start's CPU at 10,000 entries, and the
    /// first query of a new caller waits for this (its identification).
    /// Served from the index, the links are listed and their names looked up among the programs
    /// (``FrozenIndex/programsThatMayBeLinks(searchPath:)``): no walk of every entry.
    private func resolvedPrograms() -> [String: [String]] {
        let (generation, cached) = programMap.withLock { ($0.generation, $0.map) }
        if let cached { return cached }
        let (frozen, programs): (FrozenIndex?, [(id: String, program: String)]) = state.withLock { m in
            if let frozen = m.frozen { return (frozen, []) }
            return (nil, m.effective.values.compactMap { e in e.execProgram.map { (e.idText, $0) } })
        }
        let searchPath = directories.executableSearchPath
        var listings: [String: Set<String>?] = [:]
        let candidates = frozen?.programsThatMayBeLinks(searchPath: searchPath)
            ?? programs.filter { ProgramLookup.mayBeSymlink($0.program, searchPath: searchPath, listings: &listings) }
        var resolved: [String: String?] = [:]
        var map: [String: [String]] = [:]
        for candidate in candidates {
            let real: String?
            if let known = resolved[candidate.program] {
                real = known
            } else {
                real = ProgramLookup.find(candidate.program, searchPath: directories.executableSearchPath).flatMap(FileSystem.realPath)
                resolved[candidate.program] = .some(real)
            }
            if let real { map[real, default: []].append(candidate.id) }
        }
        for key in map.keys { map[key]!.sort() }
        programMap.withLock { if $0.generation == generation { $0.map = map } }
        return map
    }

    /// Whether `id` is one of the eligible handlers of `scheme`.
    public func isHandler(_ id: DesktopID, forScheme scheme: String) -> Bool {
        handlers(forScheme: scheme).contains(id)
    }

    /// Every scheme with at least one eligible handler, sorted.
    public var schemes: [String] {
        state.withLock { m in m.frozen?.schemes ?? m.sortedSchemes }
    }

    /// The most recent warnings (at most ``warningLogLimit``), oldest first.
    public var recentWarnings: [RegistryWarning] {
        warningLog.all
    }

    /// A stream of the sets of schemes (lower-cased) whose handlers or default changed. Each
    /// call returns a new, independent stream; it ends at ``close()``. With `appLinks`, it also
    /// yields (the schemes changed, possibly none) when an entry that declares app links
    /// (`X-SchemeBridge-AppLinks`) appeared, changed or went, whether or not it lists schemes.
    public func changes(appLinks: Bool = false) -> AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream<Set<String>>.makeStream(bufferingPolicy: .unbounded)
        let added: Int? = subscribers.withLock { s in
            if s.closed { return nil }
            let id = s.next
            s.next += 1
            s.continuations[id] = continuation
            if appLinks { s.appLinkStreams.insert(id) }
            return id
        }
        guard let added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { s in
                s.continuations[added] = nil
                s.appLinkStreams.remove(added)
            }
        }
        return stream
    }

    // MARK: updates

    /// Re-reads everything (for example after `PATH` programs named by `TryExec` were
    /// installed, which inotify does not report). Unchanged files are not re-parsed.
    public func rescan() {
        apply([.everything])
    }

    /// Makes `desktopID` the default handler of `scheme` for this user, the way GLib does:
    /// in `$XDG_CONFIG_HOME/mimeapps.list`, `[Default Applications]` gets
    /// `x-scheme-handler/<scheme>=<id>`, the ID is put first in `[Added Associations]` and taken
    /// out of `[Removed Associations]`. Every other byte of the file is kept. The write is atomic
    /// (temporary file in the same directory, `fsync`, `rename`) and goes to the symlink's target
    /// when the file is a symlink; missing directories and the file are created.
    ///
    /// - Returns: the scheme's resolution afterwards. (A desktop-specific
    ///   `$XDG_CONFIG_HOME/<desktop>-mimeapps.list` default, if one exists, still takes
    ///   precedence, per the spec; the returned resolution shows the effective default.)
    /// - Throws: ``SetDefaultError``; on `writeFailed` the old file is left intact.
    @discardableResult
    public func setDefault(scheme: String, desktopID: DesktopID) throws(SetDefaultError) -> HandlerResolution {
        let s: Scheme
        do { s = try Scheme(scheme) } catch { throw .invalidScheme(error) }
        return try setDefault(scheme: s, desktopID: desktopID)
    }

    /// ``setDefault(scheme:desktopID:)`` for a scheme validated already (not parsed again).
    @discardableResult
    public func setDefault(scheme s: Scheme, desktopID id: DesktopID) throws(SetDefaultError) -> HandlerResolution {
        let desktopID = id.fileName
        let name = s.name
        guard DesktopID.isValid(desktopID) else {
            throw .invalidHandler(desktopID: id, scheme: name, reason: "not a valid desktop ID")
        }
        writer.withLock { _ in materializeLocked() }
        let verdict: String? = state.withLock { m in
            guard let entry = m.effective[desktopID] else {
                if let rec = m.effectiveRecord(desktopID) {
                    switch rec.record.state {
                    case .application(let e, _):
                        return e.ineligibility(searchPath: directories.executableSearchPath) ?? "not eligible"
                    case .notApplication: return "it is not an application"
                    case .invalid: return "its desktop file is invalid"
                    }
                }
                return "no such application is installed"
            }
            if entry.schemes.contains(name) || (m.resolved[name]?.handlers.contains(id) ?? false) {
                return nil
            }
            return "it does not declare MimeType=\(s.mimeType)"
        }
        if let verdict { throw .invalidHandler(desktopID: id, scheme: name, reason: verdict) }

        let path = directories.userMimeappsList
        let changed = try writer.withLock { _ throws(SetDefaultError) -> Set<String> in
            try MimeAppsEditor.setDefault(scheme: name, desktopID: id, listPath: path)
            return applyLocked([.list(level: 0, name: "mimeapps.list")])
        }
        publish(changed)
        return resolution(forScheme: name)
    }

    // MARK: applying changes

    func apply(_ changes: Set<WatchChange>) {
        let changed = writer.withLock { _ in applyLocked(changes) }
        forgetProgramNames()
        publish(changed)
        scheduleIndexWriteIfChanged()
    }

    /// Applies `changes`; returns the schemes whose resolution changed. Caller holds `writer`.
    func applyLocked(_ changes: Set<WatchChange>) -> Set<String> {
        materializeLocked()
        var affected = Set<String>()
        var warnings: [RegistryWarning] = []
        let (appDirs, mimeDirs, listNames) = state.withLock { m in
            (m.appDirs.map(\.directory), m.mimeDirs, m.listNames)
        }
        var expanded: [WatchChange] = []
        for change in changes {
            if change == .everything {
                for i in appDirs.indices { expanded.append(.appSubtree(dir: i, relativePath: "")) }
                for l in mimeDirs.indices { expanded.append(.allLists(level: l)) }
            } else {
                expanded.append(change)
            }
        }
        // Lists first (so the first full build resolves with them in place), then files.
        expanded.sort { a, b in
            func rank(_ c: WatchChange) -> Int {
                switch c {
                case .list, .allLists: return 0
                default: return 1
                }
            }
            return rank(a) < rank(b)
        }
        var doneSubtrees = Set<WatchChange>()
        for change in expanded {
            switch change {
            case .everything:
                continue
            case .list(let level, let name):
                let path = XDGDirectories.join(mimeDirs[level].path, name)
                let (list, w) = MimeAppsList.load(path: path, allowsAssociations: name == "mimeapps.list")
                warnings.append(contentsOf: w.map(RegistryWarning.init))
                affected.formUnion(state.withLock { $0.setList(level: level, name: name, list: list) })
            case .allLists(let level):
                for name in listNames {
                    let path = XDGDirectories.join(mimeDirs[level].path, name)
                    let (list, w) = MimeAppsList.load(path: path, allowsAssociations: name == "mimeapps.list")
                    warnings.append(contentsOf: w.map(RegistryWarning.init))
                    affected.formUnion(state.withLock { $0.setList(level: level, name: name, list: list) })
                }
            case .appFile(let dir, let rel):
                let (record, w) = scanner.rescanFile(directory: appDirs[dir], relativePath: rel)
                warnings.append(contentsOf: w)
                affected.formUnion(state.withLock { $0.setRecord(dir: dir, relativePath: rel, record: record) })
            case .appSubtree(let dir, let rel):
                guard doneSubtrees.insert(change).inserted else { continue }
                let known: [String: AppFileRecord] = state.withLock { m in
                    var r: [String: AppFileRecord] = [:]
                    for (p, rec) in m.appDirs[dir].files where rel.isEmpty || p == rel || p.hasPrefix(rel + "/") {
                        r[p] = rec
                    }
                    return r
                }
                let result = scanner.scan(directory: appDirs[dir], prefix: rel, knownRecords: known)
                // A single file named by the subtree path (e.g. a moved-in symlink) is handled too.
                var records = result.records
                if !rel.isEmpty, records.isEmpty, rel.hasSuffix(".desktop") {
                    let (record, w) = scanner.rescanFile(directory: appDirs[dir], relativePath: rel)
                    warnings.append(contentsOf: w)
                    if let record { records[rel] = record }
                }
                warnings.append(contentsOf: result.warnings)
                affected.formUnion(state.withLock { m in
                    var a = Set<String>()
                    for p in known.keys where records[p] == nil {
                        m.setRecord(dir: dir, relativePath: p, record: nil, affected: &a)
                    }
                    for (p, rec) in records where known[p] != rec {
                        m.setRecord(dir: dir, relativePath: p, record: rec, affected: &a)
                    }
                    return a
                })
            }
        }
        let changed = state.withLock { $0.resolve(affected) }
        for w in warnings { Registry.record(w, log: warningLog, handler: warningHandler) }
        return changed
    }

    func publish(_ changed: Set<String>) {
        let generation = state.withLock { $0.appLinkGeneration }
        let continuations = subscribers.withLock { s in
            let appLinksChanged = s.appLinkGeneration != generation
            s.appLinkGeneration = generation
            return s.continuations.compactMap { id, c in !changed.isEmpty || (appLinksChanged && s.appLinkStreams.contains(id)) ? c : nil }
        }
        for c in continuations { c.yield(changed) }
    }

    /// Watches applications directory `dir` by listing it (after it was watched as the index
    /// said, and the index turned out stale).
    func armWatcherTree(dir: Int) {
        watcher?.armTree(dir: dir)
    }

    /// Asks the index writer for a write (debounced).
    func scheduleIndexWrite() {
        indexWriter?.schedule(after: Registry.indexWriteDelay)
    }

    /// Logs `warning` and keeps it in ``recentWarnings``.
    func warn(_ warning: RegistryWarning) {
        Registry.record(warning, log: warningLog, handler: warningHandler)
    }

    private static func record(_ warning: RegistryWarning, log: WarningLog,
                               handler: (@Sendable (RegistryWarning) -> Void)?) {
        log.append(warning, limit: warningLogLimit)
        handler?(warning)
    }

    /// Whether the last `/`-separated component of `path` is `base` (UTF-8 bytes).
    static func path(_ path: String, hasBaseName base: [UInt8]) -> Bool {
        let u = path.utf8
        guard !base.isEmpty, u.count >= base.count else { return false }
        var i = u.endIndex
        var j = base.count
        while j > 0 {
            i = u.index(before: i)
            j -= 1
            if u[i] != base[j] { return false }
        }
        return i == u.startIndex || u[u.index(before: i)] == UInt8(ascii: "/")
    }

    /// glibc's `malloc_trim(0)` when present (looked up at run time: it is not in every libc).
    static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        if let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(sym, to: Trim.self)(0)
        }
    }

    static func lowercasedASCII(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return s }
        return String(decoding: s.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

/// The registry's bounded list of recent warnings.
private final class WarningLog: Sendable {
    private let items = Mutex([RegistryWarning]())

    func append(_ warning: RegistryWarning, limit: Int) {
        items.withLock { l in
            l.append(warning)
            if l.count > limit { l.removeFirst(l.count - limit) }
        }
    }

    var all: [RegistryWarning] { items.withLock { $0 } }
}
