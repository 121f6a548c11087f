import Glibc
import Synchronization

/// The Inboxes' bookkeeping (``InboxLimits``): who sent each copy placed since the service
/// started, and the copies being written now. A copy is reserved against every cap under one
/// lock before its first byte is written, and committed (or cancelled) once written. Copies found
/// on disk that this run did not place belong to nobody known (owner nil) and count as at least
/// as old as the service.
final class InboxLedger: Sendable {
    /// A copy this run placed.
    struct Placement: Sendable {
        var caller: InboxSender
        var device: UInt64
        var inode: UInt64
        /// When it was placed (seconds since the epoch).
        var time: Int64
    }

    /// A copy being written.
    struct Reservation: Sendable {
        /// The receiving app's Inbox.
        var directory: String
        var caller: InboxSender
        /// What it is charged: the source's size.
        var bytes: Int64
        /// What it may take on disk: the source's allocated bytes, at most its size.
        var disk: Int64
        /// The file being written (created under the lock, so no other placement counts it), bytes.
        var path: [UInt8] = []
    }

    /// A copy on disk, attributed.
    struct Held {
        var path: [UInt8]
        var directory: String
        /// Nil: a copy this run did not place.
        var owner: InboxSender?
        var bytes: Int64
        var time: Int64
    }

    private struct State: Sendable {
        var placed: [[UInt8]: Placement] = [:]
        var pending: [Int: Reservation] = [:]
        var next = 0
    }

    private let state = Mutex(State())
    /// When the service started.
    private let started = Int64(time(nil))

    /// Reserves `r` in the Inboxes under `root`, making room where a cap would be passed
    /// (``InboxLimits``), then creates its file with `create` (which returns its descriptor and
    /// path); returns the reservation's token, the descriptor and the path. `QuotaExceeded` when
    /// there is no room.
    func reserve(_ r: Reservation, root: String, limits: InboxLimits, now: Int64,
                 create: () throws(OpenFailure) -> (Int32, [UInt8])) throws(OpenFailure) -> (token: Int, fd: Int32, path: [UInt8]) {
        try state.withLock { (s: inout State) throws(OpenFailure) -> (token: Int, fd: Int32, path: [UInt8]) in
            var held = Self.held(root: root, placed: &s.placed, started: started, writing: Set(s.pending.values.map(\.path)))
            let pending = Array(s.pending.values)
            func pendingBytes(_ scope: (Reservation) -> Bool) -> Int64 { pending.filter(scope).reduce(0) { $0 + $1.bytes } }
            let grace = limits.grace
            // Copies to remove, chosen for every cap before any goes (a refusal removes nothing).
            var victims: [Held] = []
            if let used = makeRoom(&held, &victims, scope: { $0.owner == r.caller }, pending: pendingBytes { $0.caller == r.caller },
                                   limit: limits.callerBytes, need: r.bytes, grace: grace, now: now) {
                throw OpenFailure(.quotaExceeded, "your documents in the apps' Inboxes take \(used) bytes; this one (\(r.bytes) bytes) would take them past \(limits.callerBytes) (one caller may keep MaxInboxBytes in all Inboxes; copies younger than \(grace) s are not removed to make room)")
            }
            if let used = makeRoom(&held, &victims, scope: { $0.directory == r.directory }, pending: pendingBytes { $0.directory == r.directory },
                                   limit: limits.inboxBytes, need: r.bytes, grace: grace, now: now) {
                throw OpenFailure(.quotaExceeded, "\(FileSystem.basename(r.directory))'s Inbox holds \(used) bytes; the document (\(r.bytes) bytes) would take it past \(limits.inboxBytes) (MaxInboxBytes; copies younger than \(grace) s are not removed to make room)")
            }
            if let used = makeRoom(&held, &victims, scope: { _ in true }, pending: pendingBytes { _ in true },
                                   limit: limits.totalBytes, need: r.bytes, grace: grace, now: now) {
                throw OpenFailure(.quotaExceeded, "the Inboxes hold \(used) bytes; the document (\(r.bytes) bytes) would take them past \(limits.totalBytes) (4 × MaxInboxBytes)")
            }
            var fs = statvfs()
            if statvfs(r.directory, &fs) == 0 {
                let unit = Int64(fs.f_frsize)
                let floor = limits.minimumFreeBytes ?? InboxLimits.freeSpaceFloor(fileSystemSize: Int64(fs.f_blocks) &* unit)
                let free = Int64(fs.f_bavail) &* unit - pending.reduce(0) { $0 + $1.disk }
                guard free - r.disk >= floor else {
                    throw OpenFailure(.quotaExceeded, "the disk holding the Inboxes has \(max(0, free)) bytes free; the document (\(r.disk) bytes) would leave less than \(floor)")
                }
            }
            for v in victims {
                guard FileSystem.withPath(v.path, { unlink($0) }) == 0 || errno == ENOENT else {
                    throw OpenFailure(.quotaExceeded, "no room in the Inboxes: an old copy (\(String(decoding: v.path, as: UTF8.self))) cannot be removed to make some (\(String(cString: strerror(errno))))")
                }
                s.placed[v.path] = nil
            }
            let (fd, path) = try create()
            var reserved = r
            reserved.path = path
            s.next += 1
            s.pending[s.next] = reserved
            return (s.next, fd, path)
        }
    }

    /// The reservation `token` became the copy at `path` (`st` its status).
    func commit(_ token: Int, path: [UInt8], status st: stat, now: Int64) {
        state.withLock { s in
            guard let r = s.pending.removeValue(forKey: token) else { return }
            s.placed[path] = Placement(caller: r.caller, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), time: now)
        }
    }

    /// The reservation `token` was not used.
    func cancel(_ token: Int) {
        _ = state.withLock { $0.pending.removeValue(forKey: token) }
    }

    /// Moves copies in `scope` from `held` to `victims` until `need` more bytes fit under
    /// `limit`: each time the oldest copy at least `grace` seconds old of the owner holding the
    /// most in scope. Nil when it fits; else the bytes used in scope (pending ones included).
    private func makeRoom(_ held: inout [Held], _ victims: inout [Held], scope: (Held) -> Bool, pending: Int64, limit: Int64,
                          need: Int64, grace: Int64, now: Int64) -> Int64? {
        var used = held.filter(scope).reduce(pending) { $0 + $1.bytes }
        while used > limit - need {
            var perOwner: [InboxSender?: Int64] = [:]
            for h in held where scope(h) { perOwner[h.owner, default: 0] += h.bytes }
            let old = held.indices.filter { scope(held[$0]) && now - held[$0].time >= grace }
            // The owner holding the most; of those holding as much, the first (``before(_:_:)``).
            func holdsLess(_ a: InboxSender?, _ b: InboxSender?) -> Bool {
                let (x, y) = (perOwner[a] ?? 0, perOwner[b] ?? 0)
                return x < y || (x == y && Self.before(b, a))
            }
            guard let owner = Set(old.map { held[$0].owner }).max(by: holdsLess),
                  let victim = old.filter({ held[$0].owner == owner }).min(by: { held[$0].time < held[$1].time }) else { return used }
            let gone = held.remove(at: victim)
            victims.append(gone)
            used -= gone.bytes
        }
        return nil
    }

    /// The order ties between owners are broken in: nobody known first, then by name.
    private static func before(_ a: InboxSender?, _ b: InboxSender?) -> Bool {
        guard let b else { return false }
        guard let a else { return true }
        return a < b
    }

    /// Every copy in every Inbox under `root` (but those being `writing`, counted as reserved),
    /// with its owner and age; forgets placements whose file is gone or replaced.
    private static func held(root: String, placed: inout [[UInt8]: Placement], started: Int64, writing: Set<[UInt8]>) -> [Held] {
        var out: [Held] = []
        var seen = Set<[UInt8]>()
        for app in (try? FileSystem.list(root))?.entries ?? [] where app.type == DT_DIR {
            let dir = XDGDirectories.join(root, app.name)
            // Every name, UTF-8 or not: a copy keeps the name of the file it copies.
            for file in (try? FileSystem.listNames(dir)) ?? [] {
                let path = FileSystem.join(dir, file.name)
                var st = stat()
                if writing.contains(path) { continue }
                // Copies only: what the app put there itself (a directory, a link) is not ours to remove.
                guard FileSystem.withPath(path, { lstat($0, &st) }) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                let bytes = Int64(st.st_size)
                if let p = placed[path], p.device == UInt64(st.st_dev), p.inode == UInt64(st.st_ino) {
                    out.append(Held(path: path, directory: dir, owner: p.caller, bytes: bytes, time: p.time))
                    seen.insert(path)
                } else {
                    out.append(Held(path: path, directory: dir, owner: nil, bytes: bytes, time: min(Int64(st.st_mtim.tv_sec), started)))
                }
            }
        }
        for path in placed.keys where !seen.contains(path) { placed[path] = nil }
        return out
    }
}
