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

/// Runs a core call, turning its failure into the contract's D-Bus error.
func adapt<T>(_ body: () throws(OpenFailure) -> T) throws(DBusError) -> T {
    do { return try body() } catch { throw DBusError(error) }
}

/// Runs an async core call, turning its failure into the contract's D-Bus error.
func adaptAsync<T>(_ body: () async throws(OpenFailure) -> T) async throws(DBusError) -> T {
    do { return try await body() } catch { throw DBusError(error) }
}
