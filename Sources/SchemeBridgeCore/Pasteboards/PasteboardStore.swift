import Glibc
import LinuxSystem
import Synchronization

/// Every pasteboard, with the rules of who may see, read, write and delete each, their quotas
/// and their lifetime. Thread-safe. Methods that touch the disk (persistent pasteboards) or a
/// caller's descriptor block: the service calls them from threads of their own.
///
/// Names: a pasteboard is found by its name among those the caller may see, its own first (so
/// two apps may use the same name without learning of each other); a name asked of an app that
/// may not see it is `NoSuchPasteboard`, exactly as a name that does not exist.
public final class PasteboardStore: Sendable {
    /// Why a pasteboard went away: deleted, expired, or evicted to make room at a global limit.
    public enum Removal: Sendable { case deleted, expired, evicted }

    /// What the service must do when a pasteboard went away: tell its watchers, drop its object.
    public typealias Removed = @Sendable (_ board: Pasteboard, _ why: Removal) -> Void

    private struct State {
        var boards: [String: Pasteboard] = [:]
        /// Name → ids of the pasteboards with that name.
        var byName: [String: [String]] = [:]
        /// Expiry timer ids.
        var timerIDs: [String: UInt64] = [:]
        var boardsByTimer: [UInt64: String] = [:]
        var nextTimer: UInt64 = 0
        /// New items of persistent pasteboards being saved to disk: admitted, not yet committed.
        /// Until then a pasteboard counts as holding the larger of its items and these, so a
        /// write to another pasteboard in that gap cannot take the owner past its quota.
        var pending: [String: Int64] = [:]

        /// What `board` counts as holding against quotas now.
        func held(_ board: Pasteboard) -> Int64 { max(board.bytes, pending[board.id] ?? 0) }
    }
    private let state = Mutex(State())
    /// Writes of persistent pasteboards, one at a time (so their versions land in order).
    private let diskLock = Mutex(())
    /// Where persistent pasteboards live; nil keeps none (tests of the rules alone).
    public let disk: PasteboardDisk?
    private let limits: @Sendable () -> PasteboardLimits
    private let removedHandler = Mutex<Removed?>(nil)
    private let timers: DeadlineTimer

    /// `limits` is asked at each operation (the config can change while running).
    public init(disk: PasteboardDisk?, limits: @escaping @Sendable () -> PasteboardLimits = { PasteboardLimits() }) {
        self.disk = disk
        self.limits = limits
        let box = StoreBox()
        self.timers = DeadlineTimer(name: "sb-pb-expiry") { timer in box.store?.expire(timer: timer) }
        box.store = self
    }

    /// Called for every pasteboard that expired or was deleted (after it is gone).
    public func onRemoved(_ handler: @escaping Removed) { removedHandler.withLock { $0 = handler } }

    /// Loads the persistent pasteboards stored on disk (at start); expired ones are removed.
    /// Returns how many were loaded.
    @discardableResult
    public func restore(warn: (String) -> Void) -> Int {
        guard let disk else { return 0 }
        let now = Self.now()
        var loaded = 0
        let limits = self.limits()
        for record in disk.load(warn: warn) {
            // The state directory is the user's: any program of the session can write there. What
            // comes back is held to the same limits as what is made (count, lifetime).
            guard record.expires > now, loaded < limits.maximumTotal else {
                if record.expires > now { warn("pasteboard storage \(record.id) is over MaxPasteboards (\(limits.maximumTotal)); removed") }
                disk.remove(record.id)
                continue
            }
            var board = Pasteboard(id: record.id, name: record.name, ownerApp: record.owner, creatorBus: nil, persistent: true,
                                   expires: min(record.expires, now + Int64(limits.maximumExpiry)))
            board.changeCount = record.changeCount
            board.grants = record.grants.compactMap { try? AppIDPattern($0) }
            board.items = record.items.map { item in item.map { (type: $0.type, data: Pasteboard.Stored.disk(path: $0.file, size: $0.size)) } }
            state.withLock { s in insert(board, into: &s) }
            loaded += 1
        }
        return loaded
    }

    // MARK: finding

    /// Creates pasteboard `name` for `caller` ("" makes a unique name), or returns the caller's
    /// own pasteboard of that name when there is one. `forShare`: the service makes it for one of
    /// the caller's shares. At the caller's count of pasteboards, the oldest one made for an
    /// earlier share of the caller's makes room (its target was launched with it long before);
    /// without one, `QuotaExceeded`. A share's pasteboard lives on after the share, so without
    /// this an app that shared 64 times in ten minutes could neither share data nor make a pasteboard.
    public func create(name requested: String, persistent: Bool, expiresIn: UInt64?, caller: Caller,
                       forShare: Bool = false) throws(PasteboardError) -> Pasteboard {
        let limits = self.limits()
        let name = requested.isEmpty ? Self.uniqueName() : try Self.validatedName(requested)
        if persistent && caller.id == nil {
            throw PasteboardError(.accessDenied, "the service cannot tell which app you are, so it cannot keep a persistent pasteboard for you")
        }
        let seconds = min(expiresIn ?? (persistent ? limits.persistentDefaultExpiry : limits.defaultExpiry), limits.longestLife(persistent: persistent))
        var board = Pasteboard(id: Self.newID(), name: name, ownerApp: caller.id, creatorBus: caller.busName, persistent: persistent,
                               expires: Self.now() + Int64(seconds))
        board.watchers[caller.busName] = caller
        board.madeForShare = forShare && !persistent
        // Pasteboards evicted to make room go once the state lock is released.
        var evicted: [Pasteboard] = []
        defer { finishRemoval(evicted, .evicted) }
        let existing: Pasteboard? = try state.withLock { s throws(PasteboardError) -> Pasteboard? in
            let boards = s.boards
            if let own = (s.byName[name] ?? []).compactMap({ boards[$0] }).first(where: { $0.access(for: caller) == .owner }) {
                s.boards[own.id]?.watchers[caller.busName] = caller
                return own
            }
            let key = board.quotaKey
            var count = s.boards.values.reduce(0) { $0 + ($1.quotaKey == key ? 1 : 0) }
            if count >= limits.quota(of: key).count,
               let oldest = s.boards.values.filter({ $0.madeForShare && $0.access(for: caller) == .owner }).min(by: { $0.expires < $1.expires }),
               let gone = detach(oldest.id, from: &s) {
                evicted.append(gone)
                count -= 1
            }
            guard count < limits.quota(of: key).count else {
                throw PasteboardError(.quotaExceeded, key == .shared
                    ? "callers known only by an executable's path have \(count) pasteboards together, their most (MaxPasteboardsUnidentified); "
                        + "delete some, or run your program from a desktop entry of its own"
                    : "you have \(count) pasteboards, the most one app may have (MaxPasteboardsPerApp); delete some first")
            }
            if s.boards.count >= limits.maximumTotal {
                guard let victims = Self.victims(in: s.boards, toFree: Int64(s.boards.count - limits.maximumTotal + 1), callerKey: key,
                                                 callerWouldHold: Int64(count + 1), measure: { _ in 1 }) else {
                    throw PasteboardError(.quotaExceeded, "the service holds \(limits.maximumTotal) pasteboards, its most, and no app holds more than you would; try again when some have expired")
                }
                evicted = victims.compactMap { detach($0, from: &s) }
            }
            // Counted from now, under the lock that checked: concurrent creates cannot both take
            // the last place (64 creates at once made 66 of a quota of 64 beside a busy machine),
            // nor make two pasteboards of one name for one owner.
            insert(board, into: &s)
            return nil
        }
        if let existing { return existing }
        if persistent {
            do throws(PasteboardError) {
                try diskLock.withLock { _ throws(PasteboardError) in try disk?.save(board) }
            } catch {
                _ = state.withLock { s in detach(board.id, from: &s) }
                throw error
            }
        }
        return board
    }

    /// The pasteboard named `name` that `caller` may see. Names are per owner, so another app can
    /// make a pasteboard of the same name and grant it to the caller; in order:
    /// 1. the one the caller was launched for (a launch grant: its process lineage or its
    ///    activated connection) — what the owner handed it wins over any other;
    /// 2. the caller's own;
    /// 3. the one pasteboard of that name granted to it.
    /// Two (of different owners) at the same step is ``PasteboardError/Kind/ambiguous``, never a
    /// guess: the caller must use the object path it was given.
    public func find(name: String, caller: Caller) throws(PasteboardError) -> Pasteboard {
        try state.withLock { s throws(PasteboardError) -> Pasteboard in
            let candidates = (s.byName[name] ?? []).compactMap { s.boards[$0] }
            let launchedFor = candidates.filter { $0.launchGrantMatches(caller) }
            let own = candidates.filter { $0.access(for: caller) == .owner }
            let granted = candidates.filter { $0.access(for: caller) == .reader }
            var found: Pasteboard?
            for (boards, how) in [(launchedFor, "launched for"), (own, "your own"), (granted, "shared with you")] where found == nil {
                found = try Self.single(boards, name, how)
            }
            guard let found else { throw .noSuchPasteboard }
            s.boards[found.id]?.watchers[caller.busName] = caller
            return found
        }
    }

    /// The caller's own pasteboard named `name` (for the `pasteboard` open option).
    public func findOwned(name: String, caller: Caller) throws(PasteboardError) -> Pasteboard {
        try state.withLock { s throws(PasteboardError) -> Pasteboard in
            let boards = s.boards
            guard let own = (s.byName[name] ?? []).compactMap({ boards[$0] }).first(where: { $0.access(for: caller) == .owner }) else {
                throw .noSuchPasteboard
            }
            return own
        }
    }

    /// The one pasteboard of `boards`, nil for none; several is ``PasteboardError/Kind/ambiguous``.
    private static func single(_ boards: [Pasteboard], _ name: String, _ how: String) throws(PasteboardError) -> Pasteboard? {
        guard boards.count > 1 else { return boards.first }
        throw PasteboardError(.ambiguous, "\(boards.count) pasteboards named '\(name.prefix(80))' of different owners are \(how): "
            + "use the object path you were given (SCHEMEBRIDGE_PASTEBOARD_PATH, or pasteboard-path in platform_data)")
    }

    /// Pasteboard `id` if `caller` may see it (and what it may do), noting the caller as a watcher.
    public func board(_ id: String, caller: Caller) throws(PasteboardError) -> (Pasteboard, Pasteboard.Access) {
        try state.withLock { s throws(PasteboardError) -> (Pasteboard, Pasteboard.Access) in
            guard let b = s.boards[id], let access = b.access(for: caller) else { throw .noSuchPasteboard }
            s.boards[id]?.watchers[caller.busName] = caller
            return (b, access)
        }
    }

    // MARK: changing

    /// Replaces the items of pasteboard `id` (its owner only); returns the new change count.
    public func setItems(_ id: String, _ items: [[(type: String, data: SealedData)]], caller: Caller) throws(PasteboardError) -> (UInt32, Pasteboard) {
        let limits = self.limits()
        guard items.count <= limits.maximumItems else {
            throw PasteboardError(.invalidArgument, "\(items.count) items: a pasteboard holds at most \(limits.maximumItems)")
        }
        let newBytes = items.reduce(Int64(0)) { $0 + $1.reduce(0) { $0 + $1.data.charge } }
        let stored: [Pasteboard.Item] = items.map { $0.map { (type: $0.type, data: .memory($0.data)) } }
        // The data replaced is freed on a thread of its own (DataRelease), never under the lock;
        // pasteboards evicted to make room go once the locks are released.
        var replaced: [Pasteboard.Item] = []
        var evicted: [Pasteboard] = []
        defer {
            DataRelease.shared.release(&replaced)
            finishRemoval(evicted, .evicted)
        }
        /// Checks the caller and quotas against the current state, making room at the global
        /// limit; the pasteboard with the new items.
        func checked(_ s: inout State) throws(PasteboardError) -> Pasteboard {
            guard let b = s.boards[id], let access = b.access(for: caller) else { throw .noSuchPasteboard }
            guard access == .owner else { throw PasteboardError(.accessDenied, "only the pasteboard's owner may change its items") }
            let key = b.quotaKey
            let quota = limits.quota(of: key).bytes
            let used = s.boards.values.reduce(Int64(0)) { $0 + ($1.quotaKey == key && $1.id != id ? s.held($1) : 0) }
            guard used + newBytes <= quota else {
                throw PasteboardError(.quotaExceeded, key == .shared
                    ? "the items (\(newBytes) bytes) would take the pasteboards of callers known only by an executable's path to \(used + newBytes) bytes; "
                        + "they share \(quota) (MaxBytesUnidentified): run your program from a desktop entry of its own"
                    : "the items (\(newBytes) bytes) would take your pasteboards to \(used + newBytes) bytes; one app may keep \(quota) (MaxBytesPerApp)")
            }
            let all = s.boards.values.reduce(Int64(0)) { $0 + ($1.id != id ? s.held($1) : 0) }
            if all + newBytes > limits.maximumTotalBytes {
                guard let victims = Self.victims(in: s.boards, toFree: all + newBytes - limits.maximumTotalBytes, callerKey: key,
                                                 callerWouldHold: used + newBytes, measure: { $0.bytes }) else {
                    throw PasteboardError(.quotaExceeded, "the service holds \(all) bytes of pasteboard data, and takes at most \(limits.maximumTotalBytes) (MaxBytes), "
                        + "and no app holds more than you would; try again when some pasteboards have expired")
                }
                evicted += victims.compactMap { detach($0, from: &s) }
            }
            var next = b
            next.items = stored
            next.changeCount = b.changeCount &+ 1
            return next
        }
        /// Puts `next`'s items and count in place; the pasteboard as it is then.
        func commit(_ next: Pasteboard, _ s: inout State) -> (UInt32, Pasteboard) {
            guard var b = s.boards[id] else { return (next.changeCount, next) }
            replaced = b.items
            b.items = stored
            b.changeCount = next.changeCount
            s.boards[id] = b
            return (b.changeCount, b)
        }
        guard state.withLock({ $0.boards[id]?.persistent }) == true else {
            // In memory only: one step under the state lock, no disk lock to wait for.
            return try state.withLock { s throws(PasteboardError) -> (UInt32, Pasteboard) in commit(try checked(&s), &s) }
        }
        // Persistent: its writes one at a time, so versions land on disk in order.
        return try diskLock.withLock { _ throws(PasteboardError) -> (UInt32, Pasteboard) in
            // Admitted once, under the state lock: the new bytes are held (pending) through the save.
            let next = try state.withLock { s throws(PasteboardError) -> Pasteboard in
                let next = try checked(&s)
                s.pending[id] = newBytes
                return next
            }
            do throws(PasteboardError) {
                try disk?.save(next)
            } catch {
                state.withLock { s in _ = s.pending.removeValue(forKey: id) }
                throw error
            }
            return state.withLock { s in
                s.pending.removeValue(forKey: id)
                return commit(next, &s)
            }
        }
    }

    /// Bytes `caller`'s app may still store (for copying a descriptor in with a limit).
    public func bytesLeft(for caller: Caller, replacing id: String) -> Int64 {
        let limits = self.limits()
        return state.withLock { s in
            guard let b = s.boards[id] else { return 0 }
            let key = b.quotaKey
            let used = s.boards.values.reduce(Int64(0)) { $0 + ($1.quotaKey == key && $1.id != id ? s.held($1) : 0) }
            return max(0, limits.quota(of: key).bytes - used)
        }
    }

    /// Adds (or with `revoke`, removes) app id grants (owner only). Revoking also drops launch
    /// grants and watchers that no longer may read.
    public func changeGrants(_ id: String, _ patterns: [AppIDPattern], revoke: Bool, caller: Caller) throws(PasteboardError) {
        let limits = self.limits()
        try diskLock.withLock { _ throws(PasteboardError) in
            let next = try state.withLock { s throws(PasteboardError) -> Pasteboard in
                guard let b = s.boards[id], let access = b.access(for: caller) else { throw .noSuchPasteboard }
                guard access == .owner else { throw PasteboardError(.accessDenied, "only the pasteboard's owner may grant or revoke access") }
                var next = b
                if revoke {
                    next.grants.removeAll { patterns.contains($0) }
                    next.launchGrants = []
                } else {
                    for p in patterns where !next.grants.contains(p) { next.grants.append(p) }
                    guard next.grants.count <= limits.maximumGrants else {
                        throw PasteboardError(.invalidArgument, "a pasteboard holds at most \(limits.maximumGrants) grants")
                    }
                }
                return next
            }
            if next.persistent { try disk?.save(next) }
            state.withLock { s in
                guard var b = s.boards[id] else { return }
                b.grants = next.grants
                if revoke { b.launchGrants = [] }
                b.watchers = b.watchers.filter { b.access(for: $0.value) != nil }
                s.boards[id] = b
            }
        }
    }

    /// Grants the handler the broker is launching read access: its app id (kept, like any
    /// grant) now, its process or connection with ``addLaunchGrant(_:_:)`` once started.
    public func grantHandler(_ id: String, handler: DesktopID, caller: Caller) throws(PasteboardError) {
        guard let pattern = try? AppIDPattern(handler.appID) else { return }
        try changeGrants(id, [pattern], revoke: false, caller: caller)
    }

    /// Adds a launch grant to pasteboard `id`.
    public func addLaunchGrant(_ id: String, _ grant: LaunchGrant) {
        state.withLock { s in s.boards[id]?.launchGrants.append(grant) }
    }

    /// Drops a launch grant everywhere (the process ended, the connection left).
    public func dropLaunchGrant(_ grant: LaunchGrant) {
        state.withLock { s in
            for id in s.boards.keys where s.boards[id]!.launchGrants.contains(grant) {
                s.boards[id]!.launchGrants.removeAll { $0 == grant }
            }
        }
    }

    /// `name` left the bus: it watches nothing any more (pasteboards it made stay until they expire).
    public func connectionLeft(_ name: String) {
        dropLaunchGrant(.connection(name))
        state.withLock { s in
            for id in s.boards.keys where s.boards[id]!.watchers[name] != nil { s.boards[id]!.watchers[name] = nil }
        }
    }

    /// The data of `type` in item `item` of pasteboard `id` when it is in memory; nil when it is
    /// still on disk (then ``data(_:item:type:caller:)``, which reads, on a thread that may block).
    public func dataInMemory(_ id: String, item: Int, type: String, caller: Caller) throws(PasteboardError) -> SealedData? {
        let (board, _) = try board(id, caller: caller)
        if case .memory(let data) = try board.data(item: item, type: type) { return data }
        return nil
    }

    /// The data of `type` in item `item` of pasteboard `id`, in memory (data of a restored
    /// pasteboard is copied from disk into memory at its first read).
    public func data(_ id: String, item: Int, type: String, caller: Caller) throws(PasteboardError) -> SealedData {
        let (board, _) = try board(id, caller: caller)
        switch try board.data(item: item, type: type) {
        case .memory(let data):
            return data
        case .disk(let path, let size):
            let fd: FileDescriptor
            do { fd = try FileDescriptor.openNoFollow(path) } catch {
                throw PasteboardError.failure(errno: error.code, "cannot read the stored data")
            }
            let data = try SealedData.take(fd, limit: size)
            state.withLock { s in
                guard var b = s.boards[id], b.items.indices.contains(item),
                      let j = b.items[item].firstIndex(where: { $0.type == type.lowercased() }) else { return }
                if case .disk(let p, _) = b.items[item][j].data, p == path {
                    b.items[item][j].data = .memory(data)
                    s.boards[id] = b
                }
            }
            return data
        }
    }

    /// Deletes pasteboard `id` (its owner or a reader: the seed's viewer cleans up after reading).
    public func delete(_ id: String, caller: Caller) throws(PasteboardError) {
        _ = try board(id, caller: caller)
        remove(id, .deleted)
    }

    /// The limits in force now.
    public var currentLimits: PasteboardLimits { limits() }

    /// The ids of every pasteboard.
    public var ids: [String] { state.withLock { Array($0.boards.keys) } }

    /// Pasteboards now (tests and leak checks).
    public var count: Int { state.withLock { $0.boards.count } }

    /// The pasteboard `id` as it is now, whoever may see it (for the service's own use).
    public func peek(_ id: String) -> Pasteboard? { state.withLock { $0.boards[id] } }

    // MARK: internals

    private func insert(_ board: Pasteboard, into s: inout State) {
        s.boards[board.id] = board
        s.byName[board.name, default: []].append(board.id)
        s.nextTimer += 1
        s.timerIDs[board.id] = s.nextTimer
        s.boardsByTimer[s.nextTimer] = board.id
        let left = max(0, board.expires - Self.now())
        timers.schedule(s.nextTimer, at: .now + .seconds(left))
    }

    private func expire(timer: UInt64) {
        guard let id = state.withLock({ $0.boardsByTimer[timer] }) else { return }
        remove(id, .expired)
    }

    private func remove(_ id: String, _ why: Removal) {
        guard let removed = state.withLock({ s in detach(id, from: &s) }) else { return }
        finishRemoval([removed], why)
    }

    /// Takes pasteboard `id` out of the state (under the state lock); ``finishRemoval(_:_:)``
    /// does the rest once the lock is released.
    private func detach(_ id: String, from s: inout State) -> Pasteboard? {
        guard let b = s.boards.removeValue(forKey: id) else { return nil }
        s.byName[b.name]?.removeAll { $0 == id }
        if s.byName[b.name]?.isEmpty == true { s.byName[b.name] = nil }
        if let t = s.timerIDs.removeValue(forKey: id) {
            s.boardsByTimer[t] = nil
            timers.cancel(t)
        }
        return b
    }

    /// Removes detached pasteboards' storage, tells the service, frees their data. Takes the
    /// disk lock: never call it with the state or disk lock held.
    private func finishRemoval(_ boards: [Pasteboard], _ why: Removal) {
        for var removed in boards {
            if removed.persistent { diskLock.withLock { _ in disk?.remove(removed.id) } }
            removedHandler.withLock { $0 }?(removed, why)
            DataRelease.shared.release(&removed.items)
        }
    }

    /// The pasteboards to evict to free `needed` (by `measure`: 1 a pasteboard, or its bytes) at
    /// a global limit: from the owner (quota key) holding the most, as long as it holds more than
    /// the caller would after its change — never the caller's own; of that owner's, those that
    /// are not persistent first, each the one expiring soonest. Nil when that frees too little
    /// (then nothing is evicted).
    static func victims(in boards: [String: Pasteboard], toFree needed: Int64, callerKey: PasteboardQuotaKey, callerWouldHold: Int64,
                        measure: (Pasteboard) -> Int64) -> [String]? {
        var held: [PasteboardQuotaKey: Int64] = [:]
        var queues: [PasteboardQuotaKey: [Pasteboard]] = [:]
        for b in boards.values where b.quotaKey != callerKey && measure(b) > 0 {
            held[b.quotaKey, default: 0] += measure(b)
            queues[b.quotaKey, default: []].append(b)
        }
        for key in queues.keys {
            queues[key]!.sort { ($0.persistent ? 1 : 0, $0.expires, $0.id) < ($1.persistent ? 1 : 0, $1.expires, $1.id) }
        }
        var freed: Int64 = 0
        var chosen: [String] = []
        while freed < needed {
            guard let (owner, amount) = held.max(by: { ($0.value, $0.key) < ($1.value, $1.key) }), amount > callerWouldHold,
                  let next = queues[owner]?.first else { return nil }
            queues[owner]!.removeFirst()
            held[owner]! -= measure(next)
            freed += measure(next)
            chosen.append(next.id)
        }
        return chosen
    }

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    static func newID() -> String { String(ReplyToken.make().prefix(32)) }

    /// A name nobody can guess: 128 random bits.
    static func uniqueName() -> String { "pasteboard-" + newID() }

    /// Names: 1 to 255 bytes, no control characters.
    static func validatedName(_ name: String) throws(PasteboardError) -> String {
        guard name.utf8.count <= 255, !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw PasteboardError(.invalidArgument, "a pasteboard name is 1 to 255 bytes without control characters")
        }
        return name
    }
}

/// The store, for a timer made before the store exists.
private final class StoreBox: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private weak var stored: PasteboardStore?
    var store: PasteboardStore? {
        get { lock.withLock { _ in stored } }
        set { lock.withLock { _ in stored = newValue } }
    }
}
