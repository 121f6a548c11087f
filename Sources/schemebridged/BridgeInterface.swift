import DBus
import SchemeBridgeCore

/// Names of the SchemeBridge D-Bus contract, version 1 (see DESIGN.md).
enum Contract {
    static let busName: BusName = "io.github.schemebridge.SchemeBridge1"
    static let objectPath: ObjectPath = "/io/github/schemebridge/SchemeBridge1"
    static let interface: InterfaceName = "io.github.schemebridge.SchemeBridge1"
    static let version: UInt32 = SchemeBridgeCore.contractVersion
}

/// The declaration of the `io.github.schemebridge.SchemeBridge1` interface: one value
/// gives both dispatch and the introspection XML shipped in `dbus/`.
struct BridgeInterface {
    func declaration() -> Interface {
        Interface(
            Contract.interface,
            properties: [
                Property("Version", type: .uint32, emitsChanged: .const, get: { .uint32(Contract.version) }),
            ])
    }
}
