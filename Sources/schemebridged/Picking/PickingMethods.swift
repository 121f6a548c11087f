import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's methods for picking a document that lives in another app (issue 25):
/// `PickDocument` for the app that picks, `ProvideDocuments` for the provider that answers.
extension MainInterface {
    static func pickingMethods(_ picking: Picking) -> [Method] {
        [
            Method(ContractSignature.pickDocument, handler: .asyncThen { call in
                let types = call.arguments[0].arrayElements?.compactMap(\.string) ?? []
                return try await picking.pick(types: types, options: call.arguments[1].stringDictionary ?? [:], sender: call.sender)
            }),
            Method(ContractSignature.provideDocuments, handler: .async { call in
                let fds = (call.arguments[1].arrayElements ?? []).compactMap { v -> UnixFD? in
                    if case .unixFD(let fd) = v { return fd } else { return nil }
                }
                try await picking.provideDocuments(token: call.string(0), fds: fds, info: call.arguments[2].stringDictionary ?? [:],
                                                  sender: call.sender)
                return []
            }),
        ]
    }
}
