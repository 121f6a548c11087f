import Foundation
import DBusTestSupport
import SchemeBridgeContract

/// The python3-dbus test clients: real `.py` files in `Tests/ServiceTests/Clients` (excluded from
/// the target in Package.swift), one folder per suite (`Support/` for fixtures several suites
/// share); Swift values reach them as argv or env.
enum Clients {
    /// `Tests/ServiceTests/Clients` in the package.
    static let files = ClientFolder("Tests/ServiceTests/Clients")

    /// The client `name` (a path below ``files`` without `.py`, e.g. `Pasteboard/viewer`).
    static func path(_ name: String) -> String { files.path(name) }
}

extension Clients {
    /// The service's bus name and object path, for clients that read them as `N, O` from
    /// `SB_NAME` and `SB_PATH`, and the request interface (`SB_REQUEST`).
    static let serviceNames = ["SB_NAME": ServiceFixture.name, "SB_PATH": ServiceFixture.path, "SB_REQUEST": Contract.requestInterface.rawValue]

    /// The command line that runs client `name` with `arguments` under the system python.
    static func command(_ name: String, _ arguments: [String]) -> [String] { files.command(name, arguments) }
}
