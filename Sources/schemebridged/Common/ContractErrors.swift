import DBus
import SchemeBridgeContract
import SchemeBridgeCore

extension DBusError {
    /// The D-Bus error of a Core failure: its kind names it (the contract's own errors after
    /// ``Contract/errorPrefix``, the standard ones in full).
    init(_ failure: ServiceFailure) {
        self.init(try! ErrorName(failure.kind.isContractError ? Contract.errorPrefix + failure.kind.rawValue : failure.kind.rawValue), failure.message)
    }
}

/// The one mapping of errors to D-Bus errors: the D-Bus layer's ``DBusErrorConvertible``. A
/// Core failure thrown by an adapter reaches the caller as its contract error (the method
/// dispatch asks ``DBusError/from(_:)``), so adapters call Core without converting per call.
extension ServiceFailure: DBusErrorConvertible {
    public var dbusError: DBusError { DBusError(self) }
}
