import DBus
import SchemeBridgeCore

/// Names of the SchemeBridge D-Bus contract, version 1 (see DESIGN.md).
enum Contract {
    static let busName: BusName = "io.github.schemebridge.SchemeBridge1"
    static let objectPath: ObjectPath = "/io/github/schemebridge/SchemeBridge1"
    static let interface: InterfaceName = "io.github.schemebridge.SchemeBridge1"
    static let version: UInt32 = SchemeBridgeCore.contractVersion
    /// Our own desktop entry (`desktop/`): never a handler, so we never route to ourselves.
    static let ownDesktopID = "io.github.schemebridge.SchemeBridge.desktop"
}

/// The contract's errors. Each carries a message a person can act on.
enum BridgeError: Error, DBusErrorConvertible {
    case invalidURL(String)
    case noHandler(scheme: String)
    case launchFailed(String)
    case accessDenied(String)
    case reservedScheme(String)
    case invalidHandler(String)
    case rateLimited(String)
    case invalidArgs(String)

    static let prefix = "io.github.schemebridge.SchemeBridge1.Error."

    var dbusError: DBusError {
        switch self {
        case .invalidURL(let m): return DBusError(ErrorName(unchecked: Self.prefix + "InvalidURL"), m)
        case .noHandler(let scheme):
            return DBusError(ErrorName(unchecked: Self.prefix + "NoHandler"),
                             "no application handles the scheme '\(scheme)'; install one that declares MimeType=x-scheme-handler/\(scheme)")
        case .launchFailed(let m): return DBusError(ErrorName(unchecked: Self.prefix + "LaunchFailed"), m)
        case .accessDenied(let m): return DBusError(ErrorName(unchecked: Self.prefix + "AccessDenied"), m)
        case .reservedScheme(let m): return DBusError(ErrorName(unchecked: Self.prefix + "ReservedScheme"), m)
        case .invalidHandler(let m): return DBusError(ErrorName(unchecked: Self.prefix + "InvalidHandler"), m)
        case .rateLimited(let m): return DBusError(ErrorName(unchecked: Self.prefix + "RateLimited"), m)
        case .invalidArgs(let m): return DBusError(.invalidArgs, m)
        }
    }
}

extension ErrorName {
    /// A name known to be valid (our own constants).
    init(unchecked text: String) { self = try! ErrorName(text) }
}
