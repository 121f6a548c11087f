import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `Pasteboard1` on each pasteboard's object: writing (`SetItems`), reading, grants, deleting,
/// and the properties a caller may see. Each call is the core's ``PasteboardCalls``.
extension PasteboardService {
    /// `Pasteboard1` on pasteboard `id`'s object.
    func objectDeclaration(_ id: String) -> Interface {
        let (store, calls) = (self.store, self.calls)
        /// A property as `caller` may see it: empty for a caller that may not (or is not known yet).
        func property(_ name: MemberName, _ type: DBusType, _ empty: DBusValue, _ value: @escaping @Sendable (Pasteboard) -> DBusValue) -> Property {
            Property(name, type: type, emitsChanged: .false, read: { [callers] sender in
                // Read on the loop thread: a caller not identified yet sees empty values, and is
                // identified (off this thread) so that its next read is answered.
                store.visible(id, to: callers.cachedOrIdentifyLater(sender)).map(value) ?? empty
            })
        }
        return Interface(Contract.pasteboardInterface, methods: [
            Method(ContractSignature.setItems, handler: .asyncThen { [self] call in
                let caller = await caller(call.sender)
                // The descriptors sent stay open (owned by `call`'s UnixFDs) until the write is committed.
                let (count, board) = try await calls.setItems(id, try Self.items(call.arguments[0], limits: store.currentLimits), caller: caller)
                withExtendedLifetime(call) {}
                // Changed goes out after the reply: the caller hears of its own change last.
                return MethodResult([.uint32(count)], followUp: { [self] in changed(board) })
            }),
            Method(ContractSignature.types, handler: .async { [self] call in
                [.array(element: .array(.string), try calls.types(id, caller: await caller(call.sender)).map { .strings($0) })]
            }),
            Method(ContractSignature.read, handler: .async { [self] call in
                let caller = await caller(call.sender)
                return [.unixFD(UnixFD(owning: try await calls.read(id, item: Int(call.arguments[0].integer ?? 0), type: call.string(1), caller: caller)))]
            }),
            Method(ContractSignature.readBytes, handler: .async { [self] call in
                let caller = await caller(call.sender)
                return [.bytes(try await calls.readBytes(id, item: Int(call.arguments[0].integer ?? 0), type: call.string(1), caller: caller))]
            }),
            Method(ContractSignature.grant, handler: .async { [self] call in try await changeGrants(call, revoke: false) }),
            Method(ContractSignature.revoke, handler: .async { [self] call in try await changeGrants(call, revoke: true) }),
            Method(ContractSignature.delete, handler: .async { [self] call in
                try await calls.delete(id, caller: await caller(call.sender))
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

    private func changeGrants(_ call: MethodCall, revoke: Bool) async throws -> [DBusValue] {
        guard let id = Self.id(inPath: call.path.rawValue) else { throw ContractError.noSuchPasteboard("no such pasteboard") }
        let caller = await caller(call.sender)
        try await calls.changeGrants(id, appIDs: call.arguments[0].arrayElements?.compactMap(\.string) ?? [], revoke: revoke, caller: caller)
        return []
    }
}
