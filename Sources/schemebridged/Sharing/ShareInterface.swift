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
            // The items read straight from the message (no value tree), as the share takes them.
            Method(ContractSignature.share, decode: { reader throws(DBusError) in try ShareContract.read(&reader, field: ShareIntake.field) }, handler: .onLoop { call in
                let arguments = call.decoded as! (items: ShareIntake.Items, options: [String: DBusValue])
                return try await sharing.share(arguments.items, options: arguments.options, sender: call.sender)
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
