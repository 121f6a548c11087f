#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// How the registry's first build went: from the on-disk index, or by reading desktop files.
public struct RegistryStartup: Sendable, Equatable {
    /// Whether an index was read and its entries were used (where their signatures matched).
    public var usedIndex = false
    /// Why an existing index was not used (nil when it was used, or when there was none).
    public var indexRejection: String?
    /// Desktop files read and parsed.
    public var filesParsed = 0
    /// Applications directories listed (walked) rather than proven unchanged by the index.
    public var directoriesWalked = 0
    /// Desktop files whose record differs from the index (changed, added, removed, or read
    /// again because the index could not vouch for them).
    public var filesChanged = 0
    /// How long the build took.
    public var duration: Duration = .zero

    /// Whether the index on disk should be rewritten.
    var indexOutdated: Bool { !usedIndex || filesChanged > 0 || directoriesWalked > 0 }

    public init() {}
}

/// The registry's bookkeeping of its index.
struct IndexState: Sendable {
    var startup = RegistryStartup()
    /// ``RegistryModel/recordGeneration`` of the last index written (or read unchanged).
    var savedGeneration = -1
    /// A failed write was logged (logged once, not at every retry).
    var warnedUnwritable = false
}

/// A weak reference the index writer's thread uses to reach the registry (set once in
/// `Registry.init`, before the writer can run).
final class RegistryReference: @unchecked Sendable {
    weak var registry: Registry?
}

extension Registry {
    /// The delay between a change and the index write it causes (changes in between join it).
    static let indexWriteDelay: Duration = .seconds(1)

    /// How the first build went (index used or not, files parsed, time taken).
    public var startup: RegistryStartup {
        indexState.withLock { $0.startup }
    }

    /// The index file this registry reads and writes, nil when disabled.
    public var indexPath: String? { indexStore?.path }

    /// The first build: the lists, then every applications directory — from the index where its
    /// signatures prove the directory unchanged (one `stat` per directory and per file, no
    /// parsing), by walking it otherwise (files whose signature matches the index still not
    /// parsed). Caller holds `writer`.
    func buildInitial() -> RegistryStartup {
        let clock = ContinuousClock()
        let started = clock.now
        var report = RegistryStartup()
        let (appDirs, levels) = state.withLock { m in (m.appDirs.map(\.directory), m.mimeDirs.indices) }
        var affected = applyLocked(Set(levels.map { WatchChange.allLists(level: $0) }))
        var contents: IndexContents? = nil
        if let indexStore {
            switch indexStore.load(directories: appDirs, locale: locale, searchPath: directories.executableSearchPath) {
            case .absent: break
            case .rejected(let reason): report.indexRejection = reason.description
            case .loaded(let c):
                contents = c
                report.usedIndex = true
            }
        }
        var warnings: [RegistryWarning] = []
        for (i, directory) in appDirs.enumerated() {
            let indexed = contents?.directories[i]
            var records: [AppFileRecord]
            if let indexed, let trusted = revalidate(indexed, directory: directory, report: &report, warnings: &warnings) {
                records = trusted
            } else {
                report.directoriesWalked += 1
                var known: [String: AppFileRecord] = [:]
                for r in indexed?.records ?? [] { known[r.relativePath] = r }
                let result = scanner.scan(directory: directory, prefix: "", knownRecords: known)
                report.filesParsed += result.parsedCount
                warnings.append(contentsOf: result.warnings)
                records = Array(result.records.values)
                if indexed != nil {
                    let before = known.count
                    var same = 0
                    for r in records where known[r.relativePath] == r { same += 1 }
                    report.filesChanged += (records.count - same) + (before - same)
                }
            }
            state.withLock { m in
                for r in records { m.setRecord(dir: i, relativePath: r.relativePath, record: r, affected: &affected) }
            }
        }
        let generation = state.withLock { m in
            _ = m.resolve(affected)
            return m.recordGeneration
        }
        for w in warnings { warn(w) }
        if report.usedIndex && !report.indexOutdated {
            indexState.withLock { $0.savedGeneration = generation }
        }
        // The first scan leaves megabytes of freed parse buffers in malloc's arenas (one per
        // parsing thread); hand them back so the service's resident size is what it keeps.
        Registry.trimHeap()
        report.duration = clock.now - started
        return report
    }

    /// The records of `indexed` brought up to date, or nil when a directory changed (then the
    /// directory is walked). Files whose signature differs, or that the index marks for
    /// re-reading, are parsed again; the others are taken as they are.
    private func revalidate(_ indexed: IndexedAppDirectory, directory: ApplicationsDirectory,
                            report: inout RegistryStartup, warnings: inout [RegistryWarning]) -> [AppFileRecord]? {
        guard indexed.complete, !indexed.directories.isEmpty else { return nil }
        let rootFD = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if rootFD >= 0 { Glibc.close(rootFD) } }
        var st = stat()
        for d in indexed.directories {
            guard !d.recent else { return nil }
            let rc: Int32
            if rootFD < 0 {
                rc = -1
            } else if d.relativePath.isEmpty {
                rc = fstat(rootFD, &st)
            } else {
                rc = d.relativePath.withCString { fstatat(rootFD, $0, &st, 0) }
            }
            let isDirectory = rc == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            switch d.kind {
            case .missing:
                // Only the root can be missing; then it must still be missing.
                guard d.relativePath.isEmpty, !isDirectory, FileSystem.info(directory.path).kind != .directory else { return nil }
            default:
                guard isDirectory, FileSignature(st) == d.signature else { return nil }
            }
        }
        if rootFD < 0 { return indexed.records.isEmpty ? [] : nil }
        var records: [AppFileRecord] = []
        records.reserveCapacity(indexed.records.count)
        for r in indexed.records {
            let rc = r.relativePath.withCString { fstatat(rootFD, $0, &st, 0) }
            if !r.reread && rc == 0 && (st.st_mode & S_IFMT) == S_IFREG && FileSignature(st) == r.signature {
                records.append(r)
                continue
            }
            // Changed, or not vouched for: read again (gone, when a symlink's target went away).
            let (fresh, w) = scanner.rescanFile(directory: directory, relativePath: r.relativePath)
            report.filesParsed += 1
            warnings.append(contentsOf: w)
            if fresh != r { report.filesChanged += 1 }
            if let fresh { records.append(fresh) }
        }
        return records
    }

    /// Asks for an index write when the records changed since the last one.
    func scheduleIndexWriteIfChanged() {
        guard indexStore != nil else { return }
        let generation = state.withLock { $0.recordGeneration }
        if indexState.withLock({ $0.savedGeneration }) != generation {
            scheduleIndexWrite()
        }
    }

    /// Writes the index from a snapshot of the records (on the writer thread). Each
    /// applications directory is walked again first (no parsing): its directories' signatures
    /// are stored only when the walk finds exactly the snapshot's files, so the index never
    /// vouches for a directory whose listing it has not seen.
    func saveIndex() {
        guard let indexStore else { return }
        let (dirs, generation) = state.withLock { ($0.appDirs, $0.recordGeneration) }
        var out: [IndexedAppDirectory] = []
        out.reserveCapacity(dirs.count)
        for d in dirs {
            var known = d.files
            for key in known.keys { known[key]!.reread = false }
            let check = scanner.scan(directory: d.directory, prefix: "", knownRecords: known)
            let complete = check.parsedCount == 0 && check.records.count == d.files.count
            out.append(IndexedAppDirectory(complete: complete, directories: complete ? check.directories : [],
                                           records: Array(d.files.values)))
        }
        let bytes = RegistryIndexCodec.encode(configurationKey: indexStore.configurationKey, directories: out)
        do {
            try indexStore.save(bytes)
            indexState.withLock { $0.savedGeneration = generation }
        } catch {
            let first = indexState.withLock { s -> Bool in
                defer { s.warnedUnwritable = true }
                return !s.warnedUnwritable
            }
            if first {
                warn(RegistryWarning(path: indexStore.path,
                                     message: "cannot write the registry index (\(error.message)); each start will read the desktop files"))
            }
        }
        Registry.trimHeap()
    }
}
