import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `Pasteboards1` on the main object: `CreatePasteboard` and `FindPasteboard`.
extension PasteboardService {
    func declaration() -> Interface {
        Interface(Contract.pasteboardsInterface, methods: [
            Method(ContractSignature.createPasteboard, handler: .async { [self] call in
                let options = try PasteboardOptions(decoding: call.arguments[1].stringDictionary ?? [:])
                let caller = await caller(call.sender)
                let board = try await calls.create(name: call.string(0), persistent: options.persistent, expiresIn: options.expiresIn, caller: caller)
                exportObject(board.id)
                return [.objectPath(Self.path(board.id)), .string(board.name)]
            }),
            Method(ContractSignature.findPasteboard, handler: .async { [self] call in
                let caller = await caller(call.sender)
                let board = try store.find(name: call.string(0), caller: caller)
                return [.objectPath(Self.path(board.id))]
            }),
        ])
    }
}
