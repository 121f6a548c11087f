import Glibc
import LinuxSystem
import Synchronization

/// Something on disk that changed and must be re-read.
enum WatchChange: Hashable, Sendable {
    /// One `.desktop` file of applications directory `dir`.
    case appFile(dir: Int, relativePath: String)
    /// Everything below `relativePath` ("" for the whole directory) of applications directory `dir`.
    case appSubtree(dir: Int, relativePath: String)
    /// One list file of mime level `level`.
    case list(level: Int, name: String)
    /// Every list file of mime level `level`.
    case allLists(level: Int)
    /// Everything (the kernel's event queue overflowed).
    case everything
}

/// Watches the applications directories (recursively) and the mimeapps directories with inotify,
/// on a thread of its own, and reports what changed.
///
/// A directory that does not exist yet is waited for by watching its nearest existing ancestor;
/// when it appears it is watched and reported for a full scan. New subdirectories are watched
/// as they appear (before they are reported, so no file written into them is missed). Events are
/// coalesced for up to 5 ms of quiet (50 ms at most) before the handler is called, so that a file
/// created and then written is read once, complete.
///
/// When the kernel refuses an inotify instance (the user's `fs.inotify.max_user_instances` are
/// used up), the watcher says so once and tries again after 1 s, then at doubling intervals up
/// to every 8 s; after each failed attempt it reports ``WatchChange/everything``, so changes are
/// still seen (a rescan reads only the files whose signature changed). Once an instance is had,
/// every directory is watched, one more full rescan catches what changed meanwhile, and it
/// works as usual.
final class DirectoryWatcher: Sendable {
    struct Configuration: Sendable {
        var applicationsDirectories: [String]
        var mimeDirectories: [MimeAppsDirectory]
        var listNames: Set<String>
    }

    /// How the inotify instance is had, and how often it is asked for again after a refusal.
    struct Options: Sendable {
        /// Returns a new inotify instance (non-blocking, close-on-exec), or throws the `errno`.
        var makeInstance: @Sendable () throws(Errno) -> FileDescriptor = { try FileDescriptor.inotifyInstance() }
        /// The wait before the first new attempt after a refusal; doubled after each.
        var retryInterval: Duration = .seconds(1)
        /// The longest wait between attempts (and so between rescans meanwhile).
        var maximumRetryInterval: Duration = .seconds(8)
    }

    private enum Target: Hashable, Sendable {
        case tree(dir: Int, relativePath: String)
        case mimeLevel(Int)
        case pending
    }

    private enum Root: Hashable, Sendable {
        case apps(Int)
        case config(Int)
    }

    private struct State: ~Copyable, Sendable {
        /// The inotify instance; nil while the kernel refuses one, and once stopped.
        var instance: FileDescriptor? = nil
        /// Its number; -1 while there is none.
        var inotify: Int32 { switch instance { case .some(let fd): fd.rawValue; case .none: -1 } }
        var targets: [Int32: Set<Target>] = [:]
        var rootWatch: [Root: Int32] = [:]
        var pendingWatch: [String: Int32] = [:]
        var warnedNoSpace = false
    }

    private struct Lifecycle: Sendable {
        var running = false
        var stopRequested = false
        var thread: OSThread? = nil
    }

    /// Wakes the thread to stop; closed with the watcher.
    private let wake: FileDescriptor.Pipe
    private var wakeRead: Int32 { wake.readEnd.rawValue }
    private var wakeWrite: Int32 { wake.writeEnd.rawValue }
    private let config: Configuration
    private let options: Options
    private let state = Mutex(State())
    private let lifecycle = Mutex(Lifecycle())
    private let warn: @Sendable (RegistryWarning) -> Void

    static let mask: UInt32 = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO)
        | UInt32(IN_CLOSE_WRITE) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR)

    /// Creates the inotify instance (when the kernel refuses, with a warning: the thread asks
    /// again, see above); nil (with a warning) when not even a wake-up pipe can be had.
    init?(configuration: Configuration, options: Options = Options(), warn: @escaping @Sendable (RegistryWarning) -> Void) {
        do { wake = try FileDescriptor.pipe() } catch {
            warn(RegistryWarning(path: "pipe", message: "cannot create a wake-up pipe: \(error); changes are not watched"))
            return nil
        }
        self.config = configuration
        self.options = options
        self.warn = warn
        do {
            var made: FileDescriptor? = try options.makeInstance()
            state.withLock { $0.instance = made.take() }
        } catch {
            let code = error.code
            let reason = code == EMFILE ? "the user's inotify instances (fs.inotify.max_user_instances) are used up"
                : String(cString: strerror(code))
            warn(RegistryWarning(path: "inotify", message: "cannot watch for changes: \(reason); "
                + "trying again every few seconds, and reading the applications directories again meanwhile"))
        }
    }

    /// Adds watches for every root (or its nearest existing ancestor). Call before the first scan.
    ///
    /// `knownTrees` gives, for some applications directories, their subdirectories as the
    /// registry index recorded them: those are watched without listing every directory. The
    /// caller must then check that those directories are unchanged (after this call, so that a
    /// change in between is reported) and call ``armTree(dir:)`` for any that changed.
    func armAll(knownTrees: [Int: [String]] = [:]) {
        var changes = Set<WatchChange>()
        state.withLock { s in
            guard s.inotify >= 0 else { return }
            rearm(&s, changes: &changes, knownTrees: knownTrees)
        }
    }

    /// Watches applications directory `dir` and every directory below it, listing them.
    func armTree(dir: Int) {
        state.withLock { s in
            guard s.inotify >= 0, s.rootWatch[.apps(dir)] != nil else { return }
            addTree(dir: dir, path: config.applicationsDirectories[dir], relativePath: "", depth: 0, &s)
        }
    }

    /// Starts the watcher thread; `handler` is called on it with each batch of changes.
    func start(handler: @escaping @Sendable (Set<WatchChange>) -> Void) {
        lifecycle.withLock { l in
            guard !l.running && !l.stopRequested else { return }
            let warn = self.warn
            if let thread = OSThread.start(name: "watcher", failed: { rc in
                warn(RegistryWarning(path: "thread", message: "cannot start the watcher thread (error \(rc))"))
            }, { [self] in self.run(handler: handler) }) {
                l.running = true
                l.thread = thread
            }
        }
    }

    /// Stops the thread and releases the inotify instance. Idempotent; safe from any thread,
    /// including the watcher thread itself (it is then detached instead of joined).
    func stop() {
        let thread: OSThread? = lifecycle.withLock { l in
            if l.stopRequested { return nil }
            l.stopRequested = true
            if l.running {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
                return l.thread
            }
            // Never started: release now.
            closeDescriptors()
            return nil
        }
        guard let thread else { return }
        if thread.isCurrent {
            thread.detach()
        } else {
            thread.join()
        }
    }

    // MARK: the thread

    private func run(handler: @Sendable (Set<WatchChange>) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var retry = options.retryInterval
        loop: while true {
            let fd = state.withLock { $0.inotify }
            if fd < 0 {
                // No inotify instance: wait, ask again, and rescan meanwhile.
                if waitForStop(retry) { break }
                if becameWatched() {
                    handler([.everything])
                    warn(RegistryWarning(path: "inotify", message: "watching for changes again"))
                    continue
                }
                handler([.everything])
                retry = min(retry * 2, options.maximumRetryInterval)
                continue
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let rc = poll(&fds, 2, -1)
            if rc < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            var changes = Set<WatchChange>()
            readEvents(fd, &buffer, changes: &changes)
            // Coalesce: keep reading while events arrive within 5 ms, for at most 50 ms.
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .milliseconds(50))
            while clock.now < deadline {
                var more = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                let r = poll(&more, 2, 5)
                if r <= 0 { break }
                if more[1].revents != 0 { break loop }
                readEvents(fd, &buffer, changes: &changes)
            }
            if !changes.isEmpty { handler(changes) }
            if lifecycle.withLock({ $0.stopRequested }) { break }
        }
        lifecycle.withLock { l in
            l.running = false
            closeDescriptors()
        }
    }

    /// Closes the inotify instance (the wake-up pipe is closed with the watcher).
    private func closeDescriptors() {
        state.withLock { $0.instance = nil }
    }

    /// Waits `duration`; true when a stop was asked for meanwhile.
    private func waitForStop(_ duration: Duration) -> Bool {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        var wake = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let rc = poll(&wake, 1, Int32(clamping: max(ms, 1)))
        return (rc > 0 && wake[0].revents != 0) || lifecycle.withLock { $0.stopRequested }
    }

    /// Asks for an inotify instance again; when the kernel gives one, watches everything (the
    /// caller then rescans, for what changed while nothing was watched).
    private func becameWatched() -> Bool {
        var made = try? options.makeInstance()
        guard made != nil else { return false }
        var changes = Set<WatchChange>()
        state.withLock { s in
            s.instance = made.take()
            rearm(&s, changes: &changes)
        }
        return true
    }

    private func readEvents(_ fd: Int32, _ buffer: inout [UInt8], changes: inout Set<WatchChange>) {
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            var events: [(wd: Int32, mask: UInt32, name: String?)] = []
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + 16 <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    var name: String? = nil
                    if len > 0 && offset + 16 + len <= n {
                        let bytes = raw[(offset + 16)..<(offset + 16 + len)]
                        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
                        name = String(validating: bytes[bytes.startIndex..<end], as: UTF8.self)
                    }
                    events.append((wd, mask, name))
                    offset += 16 + len
                }
            }
            state.withLock { s in
                var needRearm = false
                for e in events {
                    handle(e.wd, e.mask, e.name, &s, &changes, &needRearm)
                }
                if needRearm { rearm(&s, changes: &changes) }
            }
        }
    }

    private func handle(_ wd: Int32, _ mask: UInt32, _ name: String?, _ s: inout State,
                        _ changes: inout Set<WatchChange>, _ needRearm: inout Bool) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            changes.insert(.everything)
            needRearm = true
            return
        }
        guard let targets = s.targets[wd] else { return }
        if mask & UInt32(IN_IGNORED) != 0 {
            s.targets[wd] = nil
            for (path, pwd) in s.pendingWatch where pwd == wd { s.pendingWatch[path] = nil }
            for (root, rwd) in s.rootWatch where rwd == wd {
                s.rootWatch[root] = nil
                needRearm = true
            }
            return
        }
        let selfGone = mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0
        let isDir = mask & UInt32(IN_ISDIR) != 0
        let appeared = mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0
        let vanished = mask & (UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) != 0
        for target in targets {
            switch target {
            case .pending:
                if appeared || selfGone { needRearm = true }
            case .mimeLevel(let level):
                if selfGone {
                    changes.insert(.allLists(level: level))
                    dropRoot(wd, &s)
                    dropTarget(.mimeLevel(level), from: wd, &s)
                    needRearm = true
                } else if let name, config.listNames.contains(name) {
                    changes.insert(.list(level: level, name: name))
                }
            case .tree(let dir, let rel):
                if selfGone {
                    if rel.isEmpty {
                        // Deleted or moved away: forget its watches (a moved directory keeps
                        // them and would report events from its new place).
                        changes.insert(.appSubtree(dir: dir, relativePath: ""))
                        dropRoot(wd, &s)
                        dropTree(dir: dir, relativePath: "", &s)
                        needRearm = true
                    }
                    continue
                }
                guard let name, !name.hasPrefix(".") else { continue }
                let child = rel.isEmpty ? name : rel + "/" + name
                let childPath = XDGDirectories.join(config.applicationsDirectories[dir], child)
                if isDir {
                    if appeared { addTree(dir: dir, path: childPath, relativePath: child, depth: child.split(separator: "/").count, &s) }
                    if vanished { dropTree(dir: dir, relativePath: child, &s) }
                    changes.insert(.appSubtree(dir: dir, relativePath: child))
                } else if name.hasSuffix(".desktop") {
                    changes.insert(.appFile(dir: dir, relativePath: child))
                } else if rel.isEmpty && config.listNames.contains(name) {
                    continue
                } else if appeared && FileSystem.info(childPath).kind == .directory
                            && ApplicationsTree.mayDescend(into: childPath, type: UInt8(DT_LNK), root: config.applicationsDirectories[dir]) {
                    // A symlink to a directory inside the tree.
                    addTree(dir: dir, path: childPath, relativePath: child, depth: child.split(separator: "/").count, &s)
                    changes.insert(.appSubtree(dir: dir, relativePath: child))
                } else if vanished && dropTree(dir: dir, relativePath: child, &s) {
                    // A symlink to a watched directory went away.
                    changes.insert(.appSubtree(dir: dir, relativePath: child))
                }
            }
        }
    }

    private func addWatch(_ path: String, _ target: Target, _ s: inout State) -> Int32? {
        let wd = inotify_add_watch(s.inotify, path, DirectoryWatcher.mask)
        if wd < 0 {
            let code = errno
            if code == ENOSPC && !s.warnedNoSpace {
                s.warnedNoSpace = true
                warn(RegistryWarning(path: path, message: "inotify watch limit reached (fs.inotify.max_user_watches); some directories are not watched live"))
            }
            return nil
        }
        s.targets[wd, default: []].insert(target)
        return wd
    }

    /// `d_type`s that may be a directory: directories, symlinks, and "unknown" (some file systems).
    private static let possibleDirectoryTypes: Set<UInt8> = [UInt8(DT_DIR), UInt8(DT_LNK), UInt8(DT_UNKNOWN)]

    private func addTree(dir: Int, path: String, relativePath: String, depth: Int, _ s: inout State) {
        var visited = Set<[UInt64]>()
        addTree(dir: dir, path: path, relativePath: relativePath, depth: depth, visited: &visited, &s)
    }

    private func addTree(dir: Int, path: String, relativePath: String, depth: Int,
                         visited: inout Set<[UInt64]>, _ s: inout State) {
        let info = FileSystem.info(path)
        guard info.kind == .directory, depth < AppScanner.maximumDepth, visited.count < ApplicationsTree.maximumDirectories,
              visited.insert([info.device, info.inode]).inserted else { return }
        guard addWatch(path, .tree(dir: dir, relativePath: relativePath), &s) != nil else { return }
        guard let listing = try? FileSystem.list(path, types: Self.possibleDirectoryTypes) else { return }
        let root = config.applicationsDirectories[dir]
        for (name, type) in listing.entries where !name.hasPrefix(".") {
            let child = XDGDirectories.join(path, name)
            guard ApplicationsTree.mayDescend(into: child, type: type, root: root) else { continue }
            let childRel = relativePath.isEmpty ? name : relativePath + "/" + name
            addTree(dir: dir, path: child, relativePath: childRel, depth: depth + 1, visited: &visited, &s)
        }
    }

    /// Forgets the watches of `relativePath` and below (a directory moved away keeps its watch,
    /// which would otherwise report events under its old name).
    @discardableResult
    private func dropTree(dir: Int, relativePath: String, _ s: inout State) -> Bool {
        var dropped = false
        for (wd, targets) in s.targets {
            var remaining = targets
            for t in targets {
                if case .tree(let d, let rel) = t, d == dir,
                   relativePath.isEmpty || rel == relativePath || rel.hasPrefix(relativePath + "/") {
                    remaining.remove(t)
                }
            }
            if remaining.count != targets.count {
                dropped = true
                if remaining.isEmpty {
                    s.targets[wd] = nil
                    inotify_rm_watch(s.inotify, wd)
                } else {
                    s.targets[wd] = remaining
                }
            }
        }
        return dropped
    }

    private func dropTarget(_ target: Target, from wd: Int32, _ s: inout State) {
        guard var targets = s.targets[wd] else { return }
        targets.remove(target)
        if targets.isEmpty {
            s.targets[wd] = nil
            inotify_rm_watch(s.inotify, wd)
        } else {
            s.targets[wd] = targets
        }
    }

    private func dropRoot(_ wd: Int32, _ s: inout State) {
        for (root, rwd) in s.rootWatch where rwd == wd { s.rootWatch[root] = nil }
    }

    /// Arms every root that is not armed; waits for missing ones on their nearest ancestor.
    private func rearm(_ s: inout State, changes: inout Set<WatchChange>, knownTrees: [Int: [String]] = [:]) {
        var roots: [(Root, String)] = config.applicationsDirectories.enumerated().map { (.apps($0.offset), $0.element) }
        for (level, dir) in config.mimeDirectories.enumerated() where dir.applications == nil {
            roots.append((.config(level), dir.path))
        }
        var neededAncestors = Set<String>()
        for (root, path) in roots where s.rootWatch[root] == nil {
            attempt: for _ in 0..<4 {
                if FileSystem.info(path).kind == .directory {
                    switch root {
                    case .apps(let k):
                        if let known = knownTrees[k] {
                            for rel in known {
                                _ = addWatch(rel.isEmpty ? path : XDGDirectories.join(path, rel), .tree(dir: k, relativePath: rel), &s)
                            }
                        } else {
                            addTree(dir: k, path: path, relativePath: "", depth: 0, &s)
                        }
                        let wd = inotify_add_watch(s.inotify, path, DirectoryWatcher.mask)
                        if wd >= 0 {
                            s.rootWatch[root] = wd
                            if let level = config.mimeDirectories.firstIndex(where: { $0.applications == k }) {
                                s.targets[wd, default: []].insert(.mimeLevel(level))
                                changes.insert(.allLists(level: level))
                            }
                        }
                        changes.insert(.appSubtree(dir: k, relativePath: ""))
                    case .config(let level):
                        if let wd = addWatch(path, .mimeLevel(level), &s) { s.rootWatch[root] = wd }
                        changes.insert(.allLists(level: level))
                    }
                    break attempt
                }
                // Wait on the nearest existing ancestor, then check again in case it appeared.
                var ancestor = FileSystem.dirname(path)
                while ancestor != "/" && FileSystem.info(ancestor).kind != .directory {
                    ancestor = FileSystem.dirname(ancestor)
                }
                neededAncestors.insert(ancestor)
                if s.pendingWatch[ancestor] == nil, let wd = addWatch(ancestor, .pending, &s) {
                    s.pendingWatch[ancestor] = wd
                }
                if FileSystem.info(path).kind != .directory { break }
            }
        }
        // Forget "pending" watches no longer needed.
        for (path, wd) in s.pendingWatch where !neededAncestors.contains(path) {
            s.pendingWatch[path] = nil
            guard var targets = s.targets[wd] else { continue }
            targets.remove(.pending)
            if targets.isEmpty {
                s.targets[wd] = nil
                inotify_rm_watch(s.inotify, wd)
            } else {
                s.targets[wd] = targets
            }
        }
    }
}
