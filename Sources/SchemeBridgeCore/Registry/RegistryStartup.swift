import Glibc
import LinuxSystem
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

    /// Whether the registry is still served from the on-disk index (``FrozenIndex``): the
    /// model of every entry has not been built.
    var isServedFromIndex: Bool { state.withLock { $0.frozen != nil } }

    /// The first build: the lists, then the applications directories.
    ///
    /// With an index whose every directory and file signature still matches (one `stat` each,
    /// no parsing), whose lists digest equals the lists just read and whose `TryExec` programs
    /// are found as they were, the registry is served from the index buffer (``FrozenIndex``):
    /// nothing is decoded. Otherwise the index's records are decoded and used where their
    /// signatures match; changed directories are walked and changed files parsed. Caller holds
    /// `writer`.
    func buildInitial(_ prepared: PreparedIndex, started: ContinuousClock.Instant) -> RegistryStartup {
        var report = RegistryStartup()
        report.indexRejection = prepared.rejection
        let (appDirs, levels) = state.withLock { m in (m.appDirs.map(\.directory), m.mimeDirs.indices) }
        let affected = applyLocked(Set(levels.map { WatchChange.allLists(level: $0) }))
        var contents: IndexContents? = nil
        if let indexStore, let buffer = prepared.buffer {
                do {
                    if let frozen = try frozenIndex(buffer, at: prepared.bodyOffset, directories: appDirs) {
                        state.withLock { $0.frozen = frozen }
                        forgetProgramNames()
                        report.usedIndex = true
                        let generation = state.withLock { $0.recordGeneration }
                        indexState.withLock { $0.savedGeneration = generation }
                        report.duration = ContinuousClock.now - started
                        return report
                    }
                    contents = try RegistryIndexCodec.decode(buffer.raw, configurationKey: indexStore.configurationKey,
                                                             directories: appDirs, locale: locale,
                                                             searchPath: directories.executableSearchPath)
                    report.usedIndex = true
                } catch {
                    report.indexRejection = error.description
                }
        }
        var warnings: [RegistryWarning] = []
        var perDirectory: [[AppFileRecord]] = []
        for (i, directory) in appDirs.enumerated() {
            let indexed = contents?.directories[i]
            if let indexed, let trusted = revalidate(indexed, directory: directory, report: &report, warnings: &warnings) {
                perDirectory.append(trusted)
                continue
            }
            report.directoriesWalked += 1
            // Watched as the index said: now watched by listing, before the walk.
            if prepared.knownTrees[i] != nil { armWatcherTree(dir: i) }
            var known: [String: AppFileRecord] = [:]
            for r in indexed?.records ?? [] { known[r.relativePath] = r }
            let result = scanner.scan(directory: directory, prefix: "", knownRecords: known)
            report.filesParsed += result.parsedCount
            warnings.append(contentsOf: result.warnings)
            let records = Array(result.records.values)
            if indexed != nil {
                var same = 0
                for r in records where known[r.relativePath] == r { same += 1 }
                report.filesChanged += (records.count - same) + (known.count - same)
            }
            perDirectory.append(records)
        }
        state.withLock { m in
            _ = m.resolve(m.load(perDirectory).union(affected))
        }
        for w in warnings { warn(w) }
        // The first scan leaves megabytes of freed parse buffers in malloc's arenas (one per
        // parsing thread); hand them back so the service's resident size is what it keeps.
        Registry.trimHeap()
        report.duration = ContinuousClock.now - started
        return report
    }

    /// The index file read and its header checked, with the directories it says each
    /// applications directory has (for the watcher: those are watched without listing them;
    /// ``buildInitial(_:started:)`` then checks them).
    struct PreparedIndex {
        var buffer: IndexBuffer?
        var bodyOffset = 0
        var knownTrees: [Int: [String]] = [:]
        var rejection: String?
    }

    func prepareIndex() -> PreparedIndex {
        var prepared = PreparedIndex()
        guard let indexStore else { return prepared }
        switch indexStore.read() {
        case .absent: return prepared
        case .rejected(let reason):
            prepared.rejection = reason.description
            return prepared
        case .loaded(let buffer):
            do {
                let body = try RegistryIndexCodec.checkHeader(buffer.raw, configurationKey: indexStore.configurationKey)
                var r = IndexByteReader(buffer.raw, offset: body)
                let count = try r.count(minimumSize: 9)
                for i in 0..<count {
                    let (complete, dirs) = try RegistryIndexCodec.decodeDirectories(&r)
                    if complete && !dirs.isEmpty && dirs.allSatisfy({ !$0.recent && $0.kind == .directory }) {
                        prepared.knownTrees[i] = dirs.map(\.relativePath)
                    }
                    _ = try r.count(minimumSize: 4 + 5 + 56 + 2)
                    try r.seek(try RegistryIndexCodec.recordsEnd(&r))
                }
                prepared.buffer = buffer
                prepared.bodyOffset = body
            } catch {
                prepared.knownTrees = [:]
                prepared.rejection = error.description
            }
            return prepared
        }
    }

    /// The index as a ``FrozenIndex`` when nothing it stores can have changed: every directory
    /// and file signature matches (one `stat` each, straight from the buffer), no file is
    /// marked for re-reading, the lists just read are those it was resolved with, and every
    /// `TryExec` program is found as it was. Nil when something changed; throws when the file
    /// is damaged or foreign.
    private func frozenIndex(_ buffer: IndexBuffer, at body: Int, directories appDirs: [ApplicationsDirectory]) throws(IndexRejection) -> FrozenIndex? {
        var r = IndexByteReader(buffer.raw, offset: body)
        let dirCount = try r.count(minimumSize: 9)
        guard dirCount == appDirs.count else { throw IndexRejection("directory count differs") }
        var unchanged = true
        var recordStarts: [Int] = []
        var recordBlocks: [Range<Int>] = []
        var checks: [FileCheck] = []
        var roots: [OpenDirectory] = []  // open until the checks that use them are done
        defer { withExtendedLifetime(roots) {} }
        for directory in appDirs {
            let (complete, dirs) = try RegistryIndexCodec.decodeDirectories(&r)
            let root = unchanged && complete ? OpenDirectory(directory.path) : nil
            if let root { roots.append(root) }
            let rootFD = root?.rawValue ?? -1
            unchanged = unchanged && complete && directoriesUnchanged(dirs, directory: directory, root: root)
            let m = try r.count(minimumSize: 4 + 5 + 56 + 2)
            let blockEnd = try RegistryIndexCodec.recordsEnd(&r)
            recordBlocks.append(r.offset..<blockEnd)
            if unchanged && m > 0 && rootFD < 0 { unchanged = false }
            // One allocation each (grown a record at a time, the arrays were copied into fresh pages ~14 times).
            recordStarts.reserveCapacity(recordStarts.count + m)
            if unchanged { checks.reserveCapacity(checks.count + m) }
            for _ in 0..<m {
                let start = r.offset
                let length = Int(try r.u32())
                guard length >= 4 + 5 + 56 + 2, length - 4 <= r.remaining else { throw IndexRejection("corrupt record length") }
                recordStarts.append(start)
                if unchanged {
                    // The path's NUL follows it in the buffer: handed to fstatat as it is; the
                    // signature's 56 bytes follow the NUL, compared as they are.
                    let rel = try r.stringBytes()
                    let signature = try r.signatureBytes()
                    let reread = try r.u8()
                    unchanged = reread == 0
                    checks.append(FileCheck(directoryFD: rootFD, path: rel.baseAddress!.assumingMemoryBound(to: CChar.self),
                                            signature: signature))
                }
                try r.seek(start + length)
            }
            guard r.offset == blockEnd else { throw IndexRejection("corrupt records length") }
        }
        guard unchanged else { return nil }
        // The stored answers are checked while the files are (the stats take longest).
        var stored: Result<FrozenIndex, IndexRejection>? = nil
        let filesUnchanged = FileCheck.allUnchanged(checks) { [offset = r.offset, searchPath = directories.executableSearchPath] in
            stored = Result { () throws(IndexRejection) -> FrozenIndex in
                try FrozenIndex(buffer: buffer, at: offset, directories: appDirs, searchPath: searchPath, recordStarts: recordStarts,
                                recordBlocks: recordBlocks)
            }
        }
        guard filesUnchanged, let stored else { return nil }
        let frozen = try stored.get()
        guard frozen.listsDigest == state.withLock({ $0.listsDigest }), frozen.tryExecUnchanged() else { return nil }
        return frozen
    }

    /// One file's `stat` against its recorded signature; `path` points into the index buffer
    /// (NUL-terminated there), relative to `directoryFD`, and `signature` at the signature's
    /// bytes there (``IndexByteWriter/signature(_:)``'s layout).
    struct FileCheck: @unchecked Sendable {
        let directoryFD: Int32
        let path: UnsafePointer<CChar>
        let signature: UnsafeRawPointer

        var unchanged: Bool {
            var st = stat()
            guard fstatat(directoryFD, path, &st, 0) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
            // The signature as the index stores it: seven 64-bit fields, in the host's byte order.
            var fields = (UInt64(st.st_dev), UInt64(st.st_ino), UInt64(bitPattern: Int64(st.st_size)),
                          UInt64(bitPattern: Int64(st.st_mtim.tv_sec)), UInt64(bitPattern: Int64(st.st_mtim.tv_nsec)),
                          UInt64(bitPattern: Int64(st.st_ctim.tv_sec)), UInt64(bitPattern: Int64(st.st_ctim.tv_nsec)))
            return withUnsafeBytes(of: &fields) { memcmp($0.baseAddress!, signature, FileCheck.signatureSize) == 0 }
        }

        /// The bytes of a stored signature.
        static let signatureSize = 56

        /// Whether every file is unchanged, running `work` meanwhile. With many files, most of
        /// them are checked on a second thread while this one does `work` and the rest (the
        /// `stat`s are most of a start-up from the index).
        static func allUnchanged(_ checks: [FileCheck], whileAlso work: () -> Void) -> Bool {
            let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            guard checks.count >= 2048, cpus > 1 else {
                work()
                return checks.allSatisfy(\.unchanged)
            }
            let half = checks.count * 2 / 5
            let second = FileCheckBatch(checks, range: half..<checks.count)
            guard let thread = OSThread.start(name: "index-check", { second.run() }) else {
                work()
                return checks.allSatisfy(\.unchanged)
            }
            work()
            let first = checks[..<half].allSatisfy(\.unchanged)
            thread.join()
            return first && second.result
        }
    }

    /// Whether the walked directories of an applications directory still have the signatures
    /// (so the names) recorded, none of them having changed just before it was recorded.
    private func directoriesUnchanged(_ dirs: [IndexedDirectory], directory: ApplicationsDirectory, root: OpenDirectory?) -> Bool {
        guard !dirs.isEmpty else { return false }
        var st = stat()
        for d in dirs {
            guard !d.recent else { return false }
            let rc: Int32
            if let root, d.relativePath.isEmpty {
                if let status = try? root.descriptor.status() { (st, rc) = (status, 0) } else { rc = -1 }
            } else if let root {
                rc = d.relativePath.withCString { fstatat(root.rawValue, $0, &st, 0) }
            } else {
                rc = -1
            }
            let isDirectory = rc == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            switch d.kind {
            case .missing:
                // Only the root can be missing; then it must still be missing.
                guard d.relativePath.isEmpty, !isDirectory, FileSystem.info(directory.path).kind != .directory else { return false }
            default:
                guard isDirectory, FileSignature(st) == d.signature else { return false }
            }
        }
        return true
    }

    /// The records of `indexed` brought up to date, or nil when a directory changed (then the
    /// directory is walked). Files whose signature differs, or that the index marks for
    /// re-reading, are parsed again; the others are taken as they are.
    private func revalidate(_ indexed: IndexedAppDirectory, directory: ApplicationsDirectory,
                            report: inout RegistryStartup, warnings: inout [RegistryWarning]) -> [AppFileRecord]? {
        guard indexed.complete else { return nil }
        let root = OpenDirectory(directory.path)
        defer { withExtendedLifetime(root) {} }
        let rootFD = root?.rawValue ?? -1
        guard directoriesUnchanged(indexed.directories, directory: directory, root: root) else { return nil }
        if rootFD < 0 { return indexed.records.isEmpty ? [] : nil }
        var st = stat()
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

    /// Turns a registry served from the index into the full model (before the first change,
    /// or a write): decodes every record and resolves. Nothing is published: the answers are
    /// those the index gave. Caller holds `writer`.
    func materializeLocked() {
        guard let frozen = state.withLock({ $0.frozen }), let indexStore else { return }
        // The records are read again from the file read at start (the same inode, whatever
        // was renamed over it since); a file changed in place fails the checks and is scanned.
        let contents = frozen.file.readAll().flatMap { buffer in
            try? RegistryIndexCodec.decode(buffer.raw, configurationKey: indexStore.configurationKey,
                                           directories: frozen.directories, locale: locale,
                                           searchPath: directories.executableSearchPath)
        }
        state.withLock { m in
            m.frozen = nil
            let perDirectory = contents?.directories.map(\.records) ?? []
            if perDirectory.count == m.appDirs.count {
                _ = m.resolve(m.load(perDirectory))
            }
        }
        forgetProgramNames()
        if contents == nil {
            // Cannot happen for a buffer that passed the checks; scan to be safe.
            _ = applyLocked([.everything])
        }
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
        writer.withLock { _ in materializeLocked() }
        let (dirs, generation, resolved) = state.withLock {
            ($0.appDirs, $0.recordGeneration, $0.resolvedSnapshot(searchPath: directories.executableSearchPath))
        }
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
        let bytes = RegistryIndexCodec.encode(configurationKey: indexStore.configurationKey, directories: out, resolved: resolved)
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

/// Files checked on a second thread; `result` is read after the thread was joined.
private final class FileCheckBatch: @unchecked Sendable {
    let checks: [Registry.FileCheck]
    let range: Range<Int>
    var result = false

    init(_ checks: [Registry.FileCheck], range: Range<Int>) { (self.checks, self.range) = (checks, range) }

    func run() { result = checks[range].allSatisfy(\.unchanged) }
}

/// A directory kept open for `fstatat` relative to it (closed with this value).
final class OpenDirectory {
    let descriptor: FileDescriptor
    /// Its number, for `fstatat`.
    var rawValue: Int32 { descriptor.rawValue }

    /// `path` opened as a directory; nil when it cannot be.
    init?(_ path: String) {
        guard let opened = try? FileDescriptor.open(path, O_RDONLY | O_DIRECTORY) else { return nil }
        descriptor = opened
    }
}
