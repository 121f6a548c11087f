import LinuxSystem

/// What each pasteboard call does over the ``PasteboardStore``, with the work that can block on
/// threads of its own: a caller's descriptors are copied on the descriptor threads (a
/// ``DescriptorRunner``), a persistent pasteboard's disk work runs on `sb-pb-disk` threads —
/// never the D-Bus loop thread or the shared pool. The daemon identifies callers, decodes and
/// encodes, and exports objects; a share's pasteboard is made here too (``forShare(_:caller:)``).
public final class PasteboardCalls: Sendable {
    /// The pasteboards and their rules.
    public let store: PasteboardStore
    /// Where persistent pasteboards are written and read back.
    let io = BlockingThreadPool(name: "sb-pb-disk", timeout: .seconds(300), maximumThreads: 4, maximumWaiting: 256)
    /// Where callers' descriptors that are not sealed memfds are copied (shared with documents).
    let descriptors: any DescriptorRunner

    /// The calls over `store`, copying descriptors through `descriptors`.
    public init(store: PasteboardStore, descriptors: any DescriptorRunner) {
        self.store = store
        self.descriptors = descriptors
    }

    /// Runs blocking `work` on a disk thread; `Failed` when none takes it in time.
    public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws(PasteboardError) -> T) async throws(PasteboardError) -> T {
        let outcome = await io.run { () -> Result<T, PasteboardError> in
            do throws(PasteboardError) { return .success(try work()) } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw PasteboardError(.failed, "the service is busy with other pasteboard data; try again")
        }
    }

    /// `CreatePasteboard`: a pasteboard `caller` owns (on a disk thread: a persistent one is written).
    public func create(name: String, persistent: Bool, expiresIn: UInt64?, caller: Caller) async throws(PasteboardError) -> Pasteboard {
        let store = self.store
        return try await blocking { () throws(PasteboardError) in
            try store.create(name: name, persistent: persistent, expiresIn: expiresIn, caller: caller)
        }
    }

    /// `SetItems`: `values` become pasteboard `id`'s items (its owner only, within its quotas);
    /// descriptors that are not sealed memfds are copied first, a persistent pasteboard is
    /// committed on a disk thread. The change count and the pasteboard after the change. The
    /// descriptors in `values` must stay open until this returns.
    public func setItems(_ id: String, _ values: [[(type: String, value: PasteboardWrite.Value)]], caller: Caller) async throws -> (UInt32, Pasteboard) {
        let store = self.store
        let ready = try await write(id, values, caller: caller)
        guard store.peek(id)?.persistent ?? false else { return try store.setItems(id, ready, caller: caller) }
        return try await blocking { () throws(PasteboardError) in try store.setItems(id, ready, caller: caller) }
    }

    /// The write of `values` to `id`, admitted and with every descriptor copied into sealed data.
    private func write(_ id: String, _ values: [[(type: String, value: PasteboardWrite.Value)]],
                       caller: Caller) async throws -> [[(type: String, data: SealedData)]] {
        var write = try store.beginWrite(id, values, caller: caller)
        if write.needsCopies {
            write = try await descriptors.run(for: caller.appID ?? caller.busName) { [write] () throws in
                var copied = write
                try copied.copy()
                return copied
            }
        }
        return write.ready
    }

    /// `Types`: each item's types, in order.
    public func types(_ id: String, caller: Caller) throws(PasteboardError) -> [[String]] {
        try store.board(id, caller: caller).0.types
    }

    /// `Read`: a new read-only descriptor of item `item`'s data of `type` (the caller owns it).
    public func read(_ id: String, item: Int, type: String, caller: Caller) async throws(PasteboardError) -> Int32 {
        try await data(id, item: item, type: type, caller: caller) { d throws(PasteboardError) in try d.openForReading().take() }
    }

    /// `ReadBytes`: item `item`'s data of `type`, within ``PasteboardLimits/maximumReadBytes``.
    public func readBytes(_ id: String, item: Int, type: String, caller: Caller) async throws(PasteboardError) -> [UInt8] {
        let limits = store.currentLimits
        return try await data(id, item: item, type: type, caller: caller) { d throws(PasteboardError) in
            try d.bytesForReading(item: item, type: type, limits: limits)
        }
    }

    /// `use` of an item's data: at once when it is in memory, on a disk thread when it must be
    /// read back from disk first (a persistent pasteboard after a restart).
    private func data<T: Sendable>(_ id: String, item: Int, type: String, caller: Caller,
                                   _ use: @escaping @Sendable (SealedData) throws(PasteboardError) -> T) async throws(PasteboardError) -> T {
        let store = self.store
        if let data = try store.dataInMemory(id, item: item, type: type, caller: caller) { return try use(data) }
        return try await blocking { () throws(PasteboardError) in try use(try store.data(id, item: item, type: type, caller: caller)) }
    }

    /// The most app ids one `Grant` or `Revoke` names.
    public static let maximumGrantNames = 256

    /// `Grant` / `Revoke` (`revoke`): app ids or patterns (``AppIDPattern``), at most
    /// ``maximumGrantNames`` at once.
    public func changeGrants(_ id: String, appIDs names: [String], revoke: Bool, caller: Caller) async throws(PasteboardError) {
        guard names.count <= Self.maximumGrantNames else { throw PasteboardError(.invalidArgument, "at most \(Self.maximumGrantNames) app ids at once") }
        let patterns = try names.map { n throws(PasteboardError) in try AppIDPattern(n) }
        let store = self.store
        try await blocking { () throws(PasteboardError) in try store.changeGrants(id, patterns, revoke: revoke, caller: caller) }
    }

    /// `Delete`.
    public func delete(_ id: String, caller: Caller) async throws(PasteboardError) {
        let store = self.store
        try await blocking { () throws(PasteboardError) in try store.delete(id, caller: caller) }
    }

    /// Grants pasteboard `id` to the `handler` that `caller` (its owner) starts.
    public func grantHandler(_ id: String, handler: DesktopID, caller: Caller) async throws(PasteboardError) {
        let store = self.store
        try await blocking { () throws(PasteboardError) in try store.grantHandler(id, handler: handler, caller: caller) }
    }

    /// A share's pasteboard: owned by `caller`, holding `values` (one item each, in order); nil
    /// when there are none. The caller's pasteboard quota applies (`QuotaExceeded`); at its count,
    /// the caller's oldest pasteboard made for an earlier share makes room. Deleted again when
    /// the items cannot be stored.
    public func forShare(_ values: [[(type: String, value: PasteboardWrite.Value)]], caller: Caller) async throws -> Pasteboard? {
        guard !values.isEmpty else { return nil }
        let store = self.store
        let board = try await blocking { () throws(PasteboardError) in
            try store.create(name: "", persistent: false, expiresIn: nil, caller: caller, forShare: true)
        }
        do {
            let ready = try await write(board.id, values, caller: caller)
            _ = try store.setItems(board.id, ready, caller: caller)
        } catch {
            discard(board, caller: caller)
            throw error
        }
        return board
    }

    /// Deletes a share's pasteboard that will not be delivered (in the background).
    public func discard(_ board: Pasteboard?, caller: Caller) {
        guard let board else { return }
        Task { try? await delete(board.id, caller: caller) }
    }
}

extension PasteboardStore.Removal {
    /// The log line for `board` removed so, and whether it is a notice (an eviction: the owner lost data it did not delete).
    public func logLine(_ board: Pasteboard) -> (notice: Bool, line: String) {
        switch self {
        case .expired: (false, "pasteboard \(board.id) expired")
        case .deleted: (false, "pasteboard \(board.id) deleted")
        case .evicted: (true, "pasteboard \(board.id) of \(board.ownerApp?.text ?? "an unidentified caller") evicted: the service was at MaxPasteboards or MaxBytes, and its owner held the most")
        }
    }
}

extension PasteboardStore {
    /// Pasteboard `id` when `caller` may see it (its owner or a grantee); nil otherwise, and for
    /// a caller not identified yet (nil). What its properties show.
    public func visible(_ id: String, to caller: Caller?) -> Pasteboard? {
        guard let caller, let board = peek(id), board.access(for: caller) != nil else { return nil }
        return board
    }
}

/// `SetItems`' items (`aa{sv}`: per item, MIME type → `ay` or `h`) as the daemon reduces them:
/// counted, their types validated and never named twice in one item, each value bytes or a
/// descriptor; anything else is `InvalidArgs` naming the item.
public enum PasteboardItemGrammar {
    /// An entry's value, as far as the grammar tells values apart.
    public enum Field: Sendable {
        case bytes([UInt8])
        /// A descriptor, by number (owned by the message: keep it alive until the write is done).
        case descriptor(Int32)
        /// Any other value, by its D-Bus signature (for the message).
        case other(signature: String)
    }

    /// The items, in the order sent, within `limits` (items, types per item).
    public static func items(_ items: [[(type: String, value: Field)]], limits: PasteboardLimits) throws(PasteboardError)
        -> [[(type: String, value: PasteboardWrite.Value)]] {
        try PasteboardWrite.check(itemCount: items.count, limits: limits)
        var out: [[(type: String, value: PasteboardWrite.Value)]] = []
        for (i, entries) in items.enumerated() {
            try PasteboardWrite.check(typeCount: entries.count, item: i, limits: limits)
            var values: [(type: String, value: PasteboardWrite.Value)] = []
            for entry in entries {
                let type = try PasteboardType.validated(entry.type)
                guard !values.contains(where: { $0.type == type }) else { throw PasteboardError(.invalidArgument, "item \(i) names '\(type)' twice") }
                switch entry.value {
                case .bytes(let b): values.append((type, .bytes(b)))
                case .descriptor(let fd): values.append((type, .descriptor(fd)))
                case .other(let signature):
                    throw PasteboardError(.invalidArgument, "item \(i)'s '\(type)' is '\(signature)': data is a byte array (ay) or a file descriptor (h)")
                }
            }
            out.append(values)
        }
        return out
    }
}
