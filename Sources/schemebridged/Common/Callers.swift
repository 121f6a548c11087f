import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// Who calls: the core's ``CallerCache`` (a caller identified at its first call; what a sandboxed
/// caller may not change, `Identity/CallerCache+Calls.swift`), its pids from `GetConnectionCredentials`.
typealias Callers = CallerCache

extension CallerCache {
    /// The cache over `connection`'s bus driver, SchemeBridge's own entry being ours.
    convenience init(connection: Connection, registry: Registry, logger: Logger) {
        self.init(ownAppIDs: [DesktopID.appID(Contract.ownDesktopID)], registry: registry,
                  credentials: { sender in (try? await BusDriver(connection).credentials(of: sender))?.processID },
                  log: { notice, message in notice ? logger.notice("\(message)") : logger.debug("\(message)") })
    }
}
