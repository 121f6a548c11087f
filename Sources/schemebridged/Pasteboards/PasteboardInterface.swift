import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `Pasteboard1` on each pasteboard's object: writing (`SetItems`), reading, grants, deleting,
/// and the properties a caller may see.
extension PasteboardService {
    /// `Pasteboard1` on pasteboard `id`'s object.
    func objectDeclaration(_ id: String) -> Interface {
        let store = self.store
        /// A property as `caller` may see it: empty for a caller that may not (or is not known yet).
        func property(_ name: MemberName, _ type: DBusType, _ empty: DBusValue, _ value: @escaping @Sendable (Pasteboard) -> DBusValue) -> Property {
            Property(name, type: type, emitsChanged: .false, read: { [callers] sender in
                // Read on the loop thread: a caller not identified yet sees empty values, and is
                // identified (off this thread) so that its next read is answered.
                if let sender, callers.cached(sender) == nil { callers.identifyLater(sender) }
                guard let sender, let caller = callers.cached(sender), let board = store.peek(id),
                      board.access(for: caller) != nil else { return empty }
                return value(board)
            })
        }
        return Interface(Contract.pasteboardInterface, methods: [
            Method(ContractSignature.setItems, handler: .asyncThen { [self] call in
                let caller = await caller(call.sender)
                // The descriptors sent stay open (owned by `call`'s UnixFDs) until the write is committed.
                let items = try Self.items(call.arguments[0], limits: store.currentLimits)
                var write = try store.beginWrite(id, items, caller: caller)
                if write.needsCopies { write = try await copy(write, caller: caller) }
                let ready = write.ready
                let persistent = store.peek(id)?.persistent ?? false
                let (count, board) = persistent
                    ? try await blocking { () throws(PasteboardError) in try store.setItems(id, ready, caller: caller) }
                    : try store.setItems(id, ready, caller: caller)
                withExtendedLifetime(call) {}
                // Changed goes out after the reply: the caller hears of its own change last.
                return MethodResult([.uint32(count)], followUp: { [self] in changed(board) })
            }),
            Method(ContractSignature.types, handler: .async { [self] call in
                let caller = await caller(call.sender)
                let (board, _) = try store.board(id, caller: caller)
                return [.array(element: .array(.string), board.types.map { .strings($0) })]
            }),
            Method(ContractSignature.read, handler: .async { [self] call in
                let caller = await caller(call.sender)
                let (item, type) = (Int(call.arguments[0].integer ?? 0), call.string(1))
                return [.unixFD(UnixFD(owning: try await data(id, item: item, type: type, caller: caller) { d throws(PasteboardError) in try d.openForReading().take() }))]
            }),
            Method(ContractSignature.readBytes, handler: .async { [self] call in
                let caller = await caller(call.sender)
                let (item, type) = (Int(call.arguments[0].integer ?? 0), call.string(1))
                let limits = store.currentLimits
                return [.bytes(try await data(id, item: item, type: type, caller: caller) { data throws(PasteboardError) in
                    try data.bytesForReading(item: item, type: type, limits: limits)
                })]
            }),
            Method(ContractSignature.grant, handler: .async { [self] call in try await changeGrants(call, revoke: false) }),
            Method(ContractSignature.revoke, handler: .async { [self] call in try await changeGrants(call, revoke: true) }),
            Method(ContractSignature.delete, handler: .async { [self] call in
                let caller = await caller(call.sender)
                try await blocking { () throws(PasteboardError) in try store.delete(id, caller: caller) }
                return []
            }),
        ], signals: [
            PasteboardChanged.declaration, PasteboardDeleted.declaration,
        ], properties: [
            property(ContractProperty.name, .string, .string("")) { .string($0.name) },
            property(ContractProperty.changeCount, .uint32, .uint32(0)) { .uint32($0.changeCount) },
            property(ContractProperty.persistent, .boolean, .boolean(false)) { .boolean($0.persistent) },
        ])
    }

    /// `use` of an item's data: at once when it is in memory, on a disk thread when it must be
    /// read back from disk first (a persistent pasteboard after a restart).
    private func data<T: Sendable>(_ id: String, item: Int, type: String, caller: Caller,
                                   _ use: @escaping @Sendable (SealedData) throws(PasteboardError) -> T) async throws -> T {
        let store = self.store
        if let data = try store.dataInMemory(id, item: item, type: type, caller: caller) {
            return try use(data)
        }
        return try await blocking { () throws(PasteboardError) in try use(try store.data(id, item: item, type: type, caller: caller)) }
    }

    /// Copies the descriptors of `write` into sealed memfds on the descriptor threads.
    private func copy(_ write: PasteboardWrite, caller: Caller) async throws -> PasteboardWrite {
        try await descriptors.run(for: caller.appID ?? caller.busName) { () throws in
            var copied = write
            try copied.copy()
            return copied
        }
    }

    private func changeGrants(_ call: MethodCall, revoke: Bool) async throws -> [DBusValue] {
        guard let id = Self.id(inPath: call.path.rawValue) else { throw ContractError.noSuchPasteboard("no such pasteboard") }
        let caller = await caller(call.sender)
        let names = call.arguments[0].arrayElements?.compactMap(\.string) ?? []
        guard names.count <= 256 else { throw DBusError(.invalidArgs, "at most 256 app ids at once") }
        let patterns = try names.map { n throws(PasteboardError) in try AppIDPattern(n) }
        try await blocking { [store] () throws(PasteboardError) in try store.changeGrants(id, patterns, revoke: revoke, caller: caller) }
        return []
    }
}
