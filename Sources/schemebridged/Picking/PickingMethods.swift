import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's methods for picking a document that lives in another app (issue 25):
/// `PickDocument` for the app that picks, `ProvideDocuments` for the provider that answers.
extension MainInterface {
    static func pickingMethods(_ picking: Picking) -> [Method] {
        [
            Method(ContractSignature.pickDocument, handler: .asyncThen { call in
                try await picking.pick(types: call.strings(0), options: call.dictionary(1), sender: call.sender)
            }),
            Method(ContractSignature.provideDocuments, handler: .async { call in
                try await picking.provideDocuments(token: call.string(0), fds: call.descriptors(1), info: call.dictionary(2), sender: call.sender)
                return []
            }),
        ]
    }
}
