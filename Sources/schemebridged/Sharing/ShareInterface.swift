import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The declaration of `io.github.schemesharing.Share1` on the main object (dispatch and the
/// introspection XML shipped in `dbus/`).
struct ShareInterface {
    let sharing: Sharing

    func declaration() -> Interface {
        let sharing = self.sharing
        return Interface(ShareContract.interface, methods: [
            Method(ContractSignature.share, handler: .onLoop { call in
                try await sharing.share(call.arguments[0], options: call.arguments[1].stringDictionary ?? [:], sender: call.sender)
            }),
            Method(ContractSignature.shareTargets, handler: .async { call in
                let types = call.arguments[0].arrayElements?.compactMap(\.string) ?? []
                let targets = try await sharing.shareTargets(types: types, sender: call.sender)
                // Built-in activities are apps' doing as far as the contract's kinds go (app|device).
                return [.array(element: .structure([.string, .string, .string, .string]), targets.map {
                    .structure([.string($0.id), .string($0.name), .string($0.icon), .string($0.kind == .device ? "device" : "app")])
                })]
            }),
        ], signals: [
            TransferEnded.declaration,
        ])
    }
}
