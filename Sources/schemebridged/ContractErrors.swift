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
