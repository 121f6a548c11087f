import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// Who calls: the core's ``CallerCache`` over the bus (a caller is identified at its first call,
/// its pid from `GetConnectionCredentials`), and the core's ``SandboxedCallerRule`` for what a
/// Flatpak caller may not change.
struct Callers: Sendable {
    let cache: CallerCache

    init(connection: Connection, registry: Registry, logger: Logger) {
        cache = CallerCache(ownAppIDs: [DesktopID.appID(Contract.ownDesktopID)], registry: registry,
                            credentials: { sender in (try? await BusDriver(connection).credentials(of: sender))?.processID },
                            log: { notice, message in notice ? logger.notice("\(message)") : logger.debug("\(message)") })
    }

    /// `sender` as the core knows callers (identified first when new), named by its bus name.
    func caller(_ sender: String) async -> Caller {
        Self.named(sender, await cache.caller(sender))
    }

    /// `sender` when it is identified already; nil when it is not yet.
    func cached(_ sender: String) -> Caller? {
        cache.cached(sender).map { Self.named(sender, $0) }
    }

    /// Identifies `sender` in the background, for its next call.
    func identifyLater(_ sender: String) {
        let cache = self.cache
        Task { _ = await cache.caller(sender) }
    }

    /// The caller `known` as the connection `sender` (the cache keeps the bus name already).
    static func named(_ sender: String, _ known: Caller) -> Caller {
        var caller = known
        caller.busName = sender
        return caller
    }

    /// `AccessDenied` when `sender` is sandboxed: `what` is the user's to change, from outside.
    func refuseSandboxed(_ sender: String, _ what: String) async throws {
        let caller = await caller(sender)
        guard SandboxedCallerRule.mayAdminister(caller) else {
            throw ContractError.accessDenied("a sandboxed app (\(caller.displayName)) cannot \(what)")
        }
    }
}
