import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The pasteboards on the bus: `Pasteboards1` on the main object, one object with `Pasteboard1`
/// per pasteboard, and their signals, sent to the owner's and grantees' connections only.
/// The rules are the core's ``PasteboardStore``; this adapter identifies callers, runs what can
/// block (a caller's descriptor, the disk) on threads of its own, and speaks D-Bus.
final class PasteboardService: Sendable {
    let store: PasteboardStore
    let connection: Connection
    let callers: CallerCache
    let registry: Registry
    let logger: Logger
    /// Where persistent pasteboards are written and read back: never the loop thread or the
    /// shared pool.
    let io = IdentificationThreads(timeout: .seconds(300), maximumThreads: 4, maximumWaiting: 256, threadName: "sb-pb-disk")
    /// Where callers' descriptors that are not sealed memfds are copied (shared with documents).
    let descriptors: DescriptorWork

    init(store: PasteboardStore, connection: Connection, callers: CallerCache, registry: Registry, descriptors: DescriptorWork, logger: Logger) {
        self.store = store
        self.descriptors = descriptors
        self.connection = connection
        self.callers = callers
        self.registry = registry
        self.logger = logger
        store.onRemoved { [weak self] board, why in self?.removed(board, why) }
    }

    static func path(_ id: String) -> ObjectPath { try! ObjectPath(Contract.pasteboardPathPrefix + "/" + id) }

    /// The id in a pasteboard's object path (nil: not one).
    static func id(inPath path: String) -> String? {
        let prefix = Contract.pasteboardPathPrefix + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let id = String(path.dropFirst(prefix.count))
        return PasteboardDisk.isID(id) ? id : nil
    }

    /// Loads the persistent pasteboards and exports their objects (at start).
    func restore() {
        let loaded = store.restore { [logger] in logger.warning("\($0)") }
        // The store's ids are what was loaded; export each one still there.
        for id in store.ids { exportObject(id) }
        if loaded > 0 { logger.info("restored \(loaded) persistent pasteboard\(loaded == 1 ? "" : "s")") }
    }

    func caller(_ sender: String) async -> PasteboardCaller {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        return PasteboardCaller(busName: sender, appID: known.appID, lineage: known.lineage)
    }

    /// Runs blocking `work` on a disk thread.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws(PasteboardError) -> T) async throws(DBusError) -> T {
        let outcome = await io.run { () -> Result<T, PasteboardError> in
            do throws(PasteboardError) { return .success(try work()) } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw DBusError(error)
        case nil: throw DBusError(.failed, "the service is busy with other pasteboard data; try again")
        }
    }

    // MARK: Pasteboards1

    func declaration() -> Interface {
        Interface(Contract.pasteboardsInterface, methods: [
            Method(ContractMethod.createPasteboard, inputs: [Argument("name", "s", maxBytes: 255), Argument("options", "a{sv}", keys: PasteboardOptions.Key.all)],
                   outputs: [Argument("pasteboard", "o"), Argument("name", "s")],
                   handler: .async { [self] call in
                       let options = try PasteboardOptions(decoding: call.arguments[1].stringDictionary ?? [:])
                       let caller = await caller(call.sender)
                       let name = call.string(0)
                       let board = try await blocking { () throws(PasteboardError) in
                           try self.store.create(name: name, persistent: options.persistent, expiresIn: options.expiresIn, caller: caller)
                       }
                       exportObject(board.id)
                       return [.objectPath(Self.path(board.id)), .string(board.name)]
                   }),
            Method(ContractMethod.findPasteboard, inputs: [Argument("name", "s", maxBytes: 255)], outputs: [Argument("pasteboard", "o")],
                   handler: .async { [self] call in
                       let caller = await caller(call.sender)
                       let board = try Self.adapt { () throws(PasteboardError) in try store.find(name: call.string(0), caller: caller) }
                       return [.objectPath(Self.path(board.id))]
                   }),
        ])
    }

    /// The pasteboard named by the `pasteboard` open option (a path or a name), which `caller`
    /// must own; returns its id.
    func ownedPasteboard(_ reference: String, caller: PasteboardCaller) throws(DBusError) -> String {
        do throws(PasteboardError) {
            let board: Pasteboard
            if reference.hasPrefix("/") {
                guard let id = Self.id(inPath: reference) else { throw PasteboardError.noSuchPasteboard }
                board = try store.board(id, caller: caller).0
            } else {
                board = try store.findOwned(name: reference, caller: caller)
            }
            guard board.access(for: caller) == .owner else {
                throw PasteboardError(.accessDenied, "only the pasteboard's owner may grant it to a handler")
            }
            return board.id
        } catch {
            throw DBusError(error)
        }
    }

    // MARK: objects

    private func exportObject(_ id: String) {
        try? connection.export([objectDeclaration(id)], at: Self.path(id))
    }

    private func removed(_ board: Pasteboard, _ why: PasteboardStore.Removal) {
        let path = Self.path(board.id)
        for name in board.watchers.keys {
            if let destination = try? BusName(name) { try? connection.emit(PasteboardDeleted(), path: path, to: destination) }
        }
        connection.unexport(path)
        switch why {
        case .expired: logger.info("pasteboard \(board.id) expired")
        case .deleted: logger.info("pasteboard \(board.id) deleted")
        case .evicted: logger.notice("pasteboard \(board.id) of \(board.ownerApp ?? "an unidentified caller") evicted: the service was at MaxPasteboards or MaxBytes, and its owner held the most")
        }
    }

    private func changed(_ board: Pasteboard) {
        let path = Self.path(board.id)
        for name in board.watchers.keys {
            if let destination = try? BusName(name) { try? connection.emit(PasteboardChanged(changeCount: board.changeCount), path: path, to: destination) }
        }
    }

    /// `Pasteboard1` on pasteboard `id`'s object.
    private func objectDeclaration(_ id: String) -> Interface {
        let store = self.store
        /// A property as `caller` may see it: empty for a caller that may not (or is not known yet).
        func property(_ name: MemberName, _ type: DBusType, _ empty: DBusValue, _ value: @escaping @Sendable (Pasteboard) -> DBusValue) -> Property {
            Property(name, type: type, emitsChanged: .false, read: { [callers, connection, registry] sender in
                // Read on the loop thread: a caller not identified yet sees empty values, and is
                // identified (off this thread) so that its next read is answered.
                if let sender, callers.cached(sender) == nil {
                    Task { _ = await callers.caller(sender, connection: connection, registry: registry) }
                }
                guard let sender, let known = callers.cached(sender), let board = store.peek(id),
                      board.access(for: PasteboardCaller(busName: sender, appID: known.appID, lineage: known.lineage)) != nil else { return empty }
                return value(board)
            })
        }
        return Interface(Contract.pasteboardInterface, methods: [
            Method(ContractMethod.setItems, inputs: [Argument("items", "aa{sv}")], outputs: [Argument("change_count", "u")],
                   handler: .asyncThen { [self] call in
                       let caller = await caller(call.sender)
                       // The descriptors sent stay open (owned by `call`'s UnixFDs) until the write is committed.
                       let items = try Self.items(call.arguments[0], limits: store.currentLimits)
                       var write = try Self.adapt { () throws(PasteboardError) in try store.beginWrite(id, items, caller: caller) }
                       if write.needsCopies { write = try await copy(write, caller: caller) }
                       let ready = write.ready
                       let persistent = store.peek(id)?.persistent ?? false
                       let (count, board) = persistent
                           ? try await blocking { () throws(PasteboardError) in try store.setItems(id, ready, caller: caller) }
                           : try Self.adapt { () throws(PasteboardError) in try store.setItems(id, ready, caller: caller) }
                       withExtendedLifetime(call) {}
                       // Changed goes out after the reply: the caller hears of its own change last.
                       return MethodResult([.uint32(count)], followUp: { [self] in changed(board) })
                   }),
            Method(ContractMethod.types, outputs: [Argument("types", "aas")],
                   handler: .async { [self] call in
                       let caller = await caller(call.sender)
                       let (board, _) = try Self.adapt { () throws(PasteboardError) in try store.board(id, caller: caller) }
                       return [.array(element: .array(.string), board.types.map { .strings($0) })]
                   }),
            Method(ContractMethod.read, inputs: [Argument("item", "u"), Argument("type", "s", maxBytes: 255)], outputs: [Argument("data", "h")],
                   handler: .async { [self] call in
                       let caller = await caller(call.sender)
                       let (item, type) = (Int(call.arguments[0].integer ?? 0), call.string(1))
                       return [.unixFD(UnixFD(owning: try await data(id, item: item, type: type, caller: caller) { d throws(PasteboardError) in try d.openForReading() }))]
                   }),
            Method(ContractMethod.readBytes, inputs: [Argument("item", "u"), Argument("type", "s", maxBytes: 255)], outputs: [Argument("data", "ay")],
                   handler: .async { [self] call in
                       let caller = await caller(call.sender)
                       let (item, type) = (Int(call.arguments[0].integer ?? 0), call.string(1))
                       let limit = store.currentLimits.maximumReadBytes
                       return [.bytes(try await data(id, item: item, type: type, caller: caller) { data throws(PasteboardError) in
                           guard data.size <= limit else {
                               throw PasteboardError(.limitsExceeded, "item \(item)'s '\(type)' is \(data.size) bytes; ReadBytes returns at most \(limit): use Read, which returns a file descriptor")
                           }
                           return try data.bytes()
                       })]
                   }),
            Method(ContractMethod.grant, inputs: [Argument("app_ids", "as")],
                   handler: .async { [self] call in try await changeGrants(call, revoke: false) }),
            Method(ContractMethod.revoke, inputs: [Argument("app_ids", "as")],
                   handler: .async { [self] call in try await changeGrants(call, revoke: true) }),
            Method(ContractMethod.delete,
                   handler: .async { [self] call in
                       let caller = await caller(call.sender)
                       try await blocking { () throws(PasteboardError) in try store.delete(id, caller: caller) }
                       return []
                   }),
        ], signals: [
            SignalDeclaration(PasteboardChanged.member, arguments: [Argument("change_count", "u")]),
            SignalDeclaration(PasteboardDeleted.member),
        ], properties: [
            property(ContractProperty.name, .string, .string("")) { .string($0.name) },
            property(ContractProperty.changeCount, .uint32, .uint32(0)) { .uint32($0.changeCount) },
            property(ContractProperty.persistent, .boolean, .boolean(false)) { .boolean($0.persistent) },
        ])
    }

    /// `use` of an item's data: at once when it is in memory, on a disk thread when it must be
    /// read back from disk first (a persistent pasteboard after a restart).
    private func data<T: Sendable>(_ id: String, item: Int, type: String, caller: PasteboardCaller,
                                   _ use: @escaping @Sendable (SealedData) throws(PasteboardError) -> T) async throws(DBusError) -> T {
        let store = self.store
        if let data = try Self.adapt({ () throws(PasteboardError) in try store.dataInMemory(id, item: item, type: type, caller: caller) }) {
            return try Self.adapt { () throws(PasteboardError) in try use(data) }
        }
        return try await blocking { () throws(PasteboardError) in try use(try store.data(id, item: item, type: type, caller: caller)) }
    }

    /// Copies the descriptors of `write` into sealed memfds on the descriptor threads.
    private func copy(_ write: PasteboardWrite, caller: PasteboardCaller) async throws(DBusError) -> PasteboardWrite {
        try await descriptors.run(for: caller.appID ?? caller.busName) { () throws(DBusError) in
            var copied = write
            try Self.adapt { () throws(PasteboardError) in try copied.copy() }
            return copied
        }
    }

    private func changeGrants(_ call: MethodCall, revoke: Bool) async throws(DBusError) -> [DBusValue] {
        guard let id = Self.id(inPath: call.path.rawValue) else { throw ContractError.noSuchPasteboard("no such pasteboard") }
        let caller = await caller(call.sender)
        let names = call.arguments[0].arrayElements?.compactMap(\.string) ?? []
        guard names.count <= 256 else { throw DBusError(.invalidArgs, "at most 256 app ids at once") }
        let patterns = try Self.adapt { () throws(PasteboardError) in try names.map { n throws(PasteboardError) in try AppIDPattern(n) } }
        try await blocking { [store] () throws(PasteboardError) in try store.changeGrants(id, patterns, revoke: revoke, caller: caller) }
        return []
    }

    /// The items of `SetItems`: per item, MIME type → bytes or descriptor, in the order sent
    /// (the descriptors stay owned by `value`'s `UnixFD`s: keep it alive until they are used).
    static func items(_ value: DBusValue, limits: PasteboardLimits) throws(DBusError) -> [[(type: String, value: PasteboardWrite.Value)]] {
        guard case .array(_, let items) = value else { return [] }
        try adapt { () throws(PasteboardError) in try PasteboardWrite.check(itemCount: items.count, limits: limits) }
        var out: [[(type: String, value: PasteboardWrite.Value)]] = []
        for (i, item) in items.enumerated() {
            guard case .dictionary(_, _, let entries) = item else { continue }
            try adapt { () throws(PasteboardError) in try PasteboardWrite.check(typeCount: entries.count, item: i, limits: limits) }
            var values: [(type: String, value: PasteboardWrite.Value)] = []
            for entry in entries {
                guard case .string(let raw) = entry.key else { continue }
                let type = try adapt { () throws(PasteboardError) in try PasteboardType.validated(raw) }
                guard !values.contains(where: { $0.type == type }) else { throw DBusError(.invalidArgs, "item \(i) names '\(type)' twice") }
                switch entry.value.unwrapped {
                case .bytes(let b): values.append((type, .bytes(b)))
                case .unixFD(let fd): values.append((type, .descriptor(fd.rawValue)))
                case let other:
                    throw DBusError(.invalidArgs, "item \(i)'s '\(type)' is '\(other.type)': data is a byte array (ay) or a file descriptor (h)")
                }
            }
            out.append(values)
        }
        return out
    }

    static func adapt<T>(_ body: () throws(PasteboardError) -> T) throws(DBusError) -> T {
        do { return try body() } catch { throw DBusError(error) }
    }
}

extension DBusError {
    /// The contract's error for a pasteboard failure.
    init(_ failure: PasteboardError) {
        switch failure.kind {
        case .noSuchPasteboard: self = ContractError.noSuchPasteboard(failure.message)
        case .ambiguous: self = ContractError.ambiguousPasteboard(failure.message)
        case .accessDenied: self = ContractError.accessDenied(failure.message)
        case .quotaExceeded: self = ContractError.quotaExceeded(failure.message)
        case .noSuchType: self = ContractError.noSuchType(failure.message)
        case .invalidArgument: self.init(.invalidArgs, failure.message)
        case .limitsExceeded: self.init(.limitsExceeded, failure.message)
        case .failed: self.init(.failed, failure.message)
        }
    }
}
