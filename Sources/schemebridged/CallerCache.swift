import DBus
import SchemeBridgeCore
import Synchronization

/// The app id of each caller, found once per unique bus name (GetConnectionCredentials →
/// pid → ``CallerIdentity``: systemd scope, Flatpak id, else the one installed application
/// whose Exec runs the caller's executable, else that executable's path) and forgotten when
/// the name leaves the bus.
final class CallerCache: Sendable {
    struct Caller: Sendable {
        let pid: UInt32?
        let appID: String?
    }

    private let known = Mutex<[String: Caller]>([:])

    /// Who `sender` is; an unknown caller gives nils (never an error).
    func caller(_ sender: String, connection: Connection, registry: Registry? = nil) async -> Caller {
        if let c = known.withLock({ $0[sender] }) { return c }
        var pid: UInt32? = nil
        if let reply = try? await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionCredentials", [.string(sender)], timeout: .seconds(2)),
           case .uint32(let p)? = reply.first?.stringDictionary?["ProcessID"]?.unwrapped {
            pid = p
        }
        var appID = pid.flatMap { CallerIdentity.appID(pid: Int32(bitPattern: $0)) }
        // An executable path: the installed application that runs it, when exactly one does.
        if let path = appID, path.hasPrefix("/"), let registry {
            let ids = registry.applicationIDs(executing: path)
            if ids.count == 1 { appID = String(ids[0].dropLast(".desktop".count)) }
        }
        let caller = Caller(pid: pid, appID: appID)
        known.withLock { $0[sender] = caller }
        return caller
    }

    /// What is known of `sender` without asking the bus (nil when not identified yet).
    func cached(_ sender: String) -> Caller? { known.withLock { $0[sender] } }

    /// Forgets `name` (it left the bus).
    func forget(_ name: String) {
        _ = known.withLock { $0.removeValue(forKey: name) }
    }

    var count: Int { known.withLock { $0.count } }
}
