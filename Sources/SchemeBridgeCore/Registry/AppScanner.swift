import Synchronization
import Glibc
import LinuxSystem

/// Reads applications directories into ``AppFileRecord``s. Runs without the registry lock.
///
/// Rules: files named `*.desktop` (not starting with `.`, so editors' and our own temporary
/// files are skipped) anywhere under the directory; subdirectories give `sub-name.desktop` IDs;
/// symlinks are followed, and a directory already visited in this walk (same device and inode —
/// a symlink loop or a second link to it) is skipped with a warning; at most 16 levels deep.
/// Unreadable directories and files produce a warning; files that vanish during the scan are
/// simply absent.
struct AppScanner: Sendable {
    let locale: LocaleMatcher
    let searchPath: [String]
    static let maximumDepth = 16

    struct Result: Sendable {
        /// Relative path → record for every file found (unchanged ones reuse `known`).
        var records: [String: AppFileRecord] = [:]
        var warnings: [RegistryWarning] = []
        /// Every directory walked, with its signature taken before it was listed (for the
        /// registry index).
        var directories: [IndexedDirectory] = []
        /// How many files were read and parsed (the others were known and unchanged).
        var parsedCount = 0
    }

    /// Walks `directory` below `prefix` ("" for all of it). Files whose signature equals the one
    /// in `known` are not re-read; `knownRecords` supplies their records.
    func scan(directory: ApplicationsDirectory, prefix: String,
              knownRecords: [String: AppFileRecord]) -> Result {
        var result = Result()
        var visited = Set<[UInt64]>()
        let start = prefix.isEmpty ? directory.path : XDGDirectories.join(directory.path, prefix)
        let info = FileSystem.info(start)
        let now = FileSignature.now()
        guard info.kind == .directory else {
            result.directories.append(IndexedDirectory(relativePath: prefix, kind: .missing, signature: FileSignature(), recent: false))
            return result
        }
        result.directories.append(IndexedDirectory(relativePath: prefix, kind: .directory, signature: info.signature,
                                                   recent: info.signature.isRecent(now: now)))
        visited.insert([info.device, info.inode])
        var jobs: [ParseJob] = []
        walk(directory: directory, path: start, relative: prefix, depth: 0, visited: &visited,
             known: knownRecords, result: &result, jobs: &jobs)
        // The files to read, in walk order; parsed on several threads when there are many.
        let parsed = parseAll(directory: directory, jobs)
        result.parsedCount = jobs.count
        for (job, p) in zip(jobs, parsed) {
            guard let p else { continue }
            result.records[job.relativePath] = p.0
            result.warnings.append(contentsOf: p.1)
        }
        return result
    }

    /// A file the walk found that must be read.
    struct ParseJob: Sendable {
        let relativePath: String
        let path: String
    }

    /// Below this many files a scan reads them on the calling thread.
    static let parallelThreshold = 256
    /// At most this many threads read files (the calling thread included).
    static let maximumThreads = 4

    /// Parses `jobs`, in the same order. With at least ``parallelThreshold`` files and more than
    /// one CPU, worker threads take files from a shared counter (the parse of one file touches
    /// nothing shared), which roughly divides the start-up scan by the number of CPUs.
    func parseAll(directory: ApplicationsDirectory, _ jobs: [ParseJob]) -> [(AppFileRecord, [RegistryWarning])?] {
        let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let threads = min(AppScanner.maximumThreads, max(1, cpus), jobs.count / AppScanner.parallelThreshold + 1)
        if threads <= 1 {
            return jobs.map { parse(directory: directory, relativePath: $0.relativePath, path: $0.path) }
        }
        let shared = ParallelParse(scanner: self, directory: directory, jobs: jobs)
        let helpers = (1..<threads).compactMap { _ in OSThread.start(name: "parse") { shared.run() } }
        shared.run()
        for thread in helpers { thread.join() }
        return shared.results()
    }

    private func walk(directory: ApplicationsDirectory, path: String, relative: String, depth: Int,
                      visited: inout Set<[UInt64]>, known: [String: AppFileRecord], result: inout Result,
                      jobs: inout [ParseJob]) {
        let listing: (entries: [(name: String, type: UInt8)], undecodable: Int)
        do {
            listing = try FileSystem.list(path)
        } catch {
            if error.code != ENOENT && error.code != ENOTDIR {
                result.warnings.append(RegistryWarning(path: path, message: error.message + "; its entries are skipped"))
            }
            return
        }
        if listing.undecodable > 0 {
            result.warnings.append(RegistryWarning(path: path, message: "\(listing.undecodable) file name(s) are not UTF-8; skipped"))
        }
        for (name, type) in listing.entries where !name.hasPrefix(".") {
            let full = XDGDirectories.join(path, name)
            let rel = relative.isEmpty ? name : relative + "/" + name
            let isDesktop = name.hasSuffix(".desktop") && name.utf8.count > 8
            if type == UInt8(DT_REG) && !isDesktop { continue }
            // A regular file never seen before is read at once (its signature comes from the read).
            if type == UInt8(DT_REG) && known[rel] == nil {
                jobs.append(ParseJob(relativePath: rel, path: full))
                continue
            }
            if type == UInt8(DT_DIR) || type == UInt8(DT_LNK) || type == UInt8(DT_UNKNOWN) || isDesktop {
                let info = FileSystem.info(full)
                switch info.kind {
                case .directory:
                    guard ApplicationsTree.mayDescend(into: full, type: type, root: directory.path) else {
                        result.warnings.append(RegistryWarning(path: full, message: "a symbolic link out of \(directory.path); not followed"))
                        continue
                    }
                    guard visited.count < ApplicationsTree.maximumDirectories else {
                        result.warnings.append(RegistryWarning(path: full, message: "more than \(ApplicationsTree.maximumDirectories) directories below \(directory.path); the rest is skipped"))
                        continue
                    }
                    guard depth + 1 < AppScanner.maximumDepth else {
                        result.warnings.append(RegistryWarning(path: full, message: "nested more than \(AppScanner.maximumDepth) levels deep; skipped"))
                        continue
                    }
                    guard visited.insert([info.device, info.inode]).inserted else {
                        result.warnings.append(RegistryWarning(path: full, message: "directory already scanned (symlink loop?); skipped"))
                        continue
                    }
                    result.directories.append(IndexedDirectory(relativePath: rel, kind: .directory, signature: info.signature,
                                                               recent: info.signature.isRecent(now: FileSignature.now())))
                    walk(directory: directory, path: full, relative: rel, depth: depth + 1,
                         visited: &visited, known: known, result: &result, jobs: &jobs)
                case .file where isDesktop:
                    if let old = known[rel], old.signature == info.signature, !old.reread {
                        result.records[rel] = old
                    } else {
                        jobs.append(ParseJob(relativePath: rel, path: full))
                    }
                case .other where isDesktop:
                    result.warnings.append(RegistryWarning(path: full, message: "not a regular file; skipped"))
                default:
                    continue
                }
            }
        }
    }

    /// Parses one file into a record; nil when it vanished.
    func parse(directory: ApplicationsDirectory, relativePath: String, path: String) -> (AppFileRecord, [RegistryWarning])? {
        let id = DesktopID.make(relativePath: relativePath)
        do {
            let (entry, keyWarnings, signature) = try DesktopEntry.loadWithSignature(path: path, id: id, directory: directory, locale: locale)
            var warnings = keyWarnings.map(RegistryWarning.init)
            guard let entry else {
                var record = AppFileRecord(relativePath: relativePath, id: id, signature: signature, state: .notApplication)
                record.reread = !warnings.isEmpty || signature.isRecent(now: FileSignature.now())
                return (record, warnings)
            }
            let reason = entry.ineligibility(searchPath: searchPath)
            if reason != nil, !entry.hidden, entry.execError != nil, !entry.dbusActivatable {
                warnings.append(RegistryWarning(path: path, message: "skipped: \(reason!)"))
            }
            var record = AppFileRecord(relativePath: relativePath, id: id, signature: signature,
                                       state: .application(entry, eligible: reason == nil))
            record.reread = !warnings.isEmpty || signature.isRecent(now: FileSignature.now())
            return (record, warnings)
        } catch {
            let info = FileSystem.info(path)
            if info.kind == .missing { return nil }
            var record = AppFileRecord(relativePath: relativePath, id: id, signature: info.signature, state: .invalid)
            // Read again at every start, so its warning is logged again.
            record.reread = true
            return (record,
                    [RegistryWarning(path: error.path, line: error.line, message: error.message + "; skipped")])
        }
    }

    /// Re-reads one file after an event; nil record when it is gone (or not a `.desktop` file).
    func rescanFile(directory: ApplicationsDirectory, relativePath: String) -> (AppFileRecord?, [RegistryWarning]) {
        let path = XDGDirectories.join(directory.path, relativePath)
        let info = FileSystem.info(path)
        switch info.kind {
        case .file:
            guard let parsed = parse(directory: directory, relativePath: relativePath, path: path) else {
                return (nil, [])
            }
            return (parsed.0, parsed.1)
        case .other:
            return (nil, [RegistryWarning(path: path, message: "not a regular file; skipped")])
        default:
            return (nil, [])
        }
    }
}

/// The shared state of one parallel parse: the jobs, a counter handing them out, and one result
/// slot per job, each written by exactly one thread before the threads are joined.
private final class ParallelParse: @unchecked Sendable {
    let scanner: AppScanner
    let directory: ApplicationsDirectory
    let jobs: [AppScanner.ParseJob]
    private let next = Atomic<Int>(0)
    private let slots: UnsafeMutableBufferPointer<(AppFileRecord, [RegistryWarning])?>

    init(scanner: AppScanner, directory: ApplicationsDirectory, jobs: [AppScanner.ParseJob]) {
        self.scanner = scanner
        self.directory = directory
        self.jobs = jobs
        slots = .allocate(capacity: jobs.count)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    /// Parses files until none is left (batches of 8 keep the counter cold).
    func run() {
        let batch = 8
        while true {
            let first = next.wrappingAdd(batch, ordering: .relaxed).oldValue
            if first >= jobs.count { return }
            for i in first..<min(first + batch, jobs.count) {
                slots[i] = scanner.parse(directory: directory, relativePath: jobs[i].relativePath, path: jobs[i].path)
            }
        }
    }

    /// The results; call after every thread has finished.
    func results() -> [(AppFileRecord, [RegistryWarning])?] { Array(slots) }
}
