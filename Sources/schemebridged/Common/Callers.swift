import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Who calls: the caller cache over the connection (a caller is identified at its first call),
/// and the core's ``SandboxedCallerRule`` for what a Flatpak caller may not change.
struct Callers: Sendable {
    let cache: CallerCache
    let connection: Connection
    let registry: Registry

    /// `sender` as the core knows callers (identified first when new), named by its bus name.
    func caller(_ sender: String) async -> Caller {
        Self.named(sender, await cache.caller(sender, connection: connection, registry: registry))
    }

    /// `sender` when it is identified already; nil when it is not yet.
    func cached(_ sender: String) -> Caller? {
        cache.cached(sender).map { Self.named(sender, $0) }
    }

    /// Identifies `sender` in the background, for its next call.
    func identifyLater(_ sender: String) {
        let (cache, connection, registry) = (self.cache, self.connection, self.registry)
        Task { _ = await cache.caller(sender, connection: connection, registry: registry) }
    }

    /// The caller `known` as the connection `sender` (the cache keeps the bus name already).
    static func named(_ sender: String, _ known: Caller) -> Caller {
        var caller = known
        caller.busName = sender
        return caller
    }

    /// `AccessDenied` when `sender` is sandboxed: `what` is the user's to change, from outside.
    func refuseSandboxed(_ sender: String, _ what: String) async throws(DBusError) {
        let caller = await caller(sender)
        guard SandboxedCallerRule.mayAdminister(caller) else {
            throw ContractError.accessDenied("a sandboxed app (\(caller.displayName)) cannot \(what)")
        }
    }
}
