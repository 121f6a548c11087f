import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// The app id of each caller, found once per unique bus name (GetConnectionCredentials →
/// pid → ``CallerIdentity``: systemd scope, Flatpak id, else the one installed application
/// whose Exec runs the caller's executable, else that executable's path) and forgotten when
/// the name leaves the bus.
///
/// When the caller is our own `schemebridge` command (its `/proc/PID/exe` is the very file
/// `schemebridge` beside this service's executable: see ``CallerAncestry``), the caller is the
/// app behind it: the nearest ancestor identified as an installed app, read while the command
/// is connected (it is identified when it connects and, at the latest, during its first call,
/// while it waits for the reply). No ancestor found: the command itself, as any other caller.
final class CallerCache: Sendable {
    struct Caller: Sendable {
        let pid: UInt32?
        let appID: String?
        /// True when `appID` is the app behind our CLI (`pid` is still the CLI's).
        var throughCLI = false
    }

    private let known = Mutex<[String: Caller]>([:])
    /// How a client running our CLI is traced back to its app.
    let ancestry: CallerAncestry

    /// `ancestry` defaults to our CLI beside this executable, with our own desktop id.
    init(ancestry: CallerAncestry? = nil) {
        self.ancestry = ancestry ?? CallerAncestry(
            cliPath: CallerAncestry.cliBeside(serviceExecutable: CallerIdentity.executablePath(pid: getpid())),
            ownAppIDs: [String(Contract.ownDesktopID.dropLast(".desktop".count))])
    }

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
        /// The installed application that runs the program at `path`, when exactly one does.
        func installedApp(_ path: String) -> String? {
            guard let registry else { return nil }
            let ids = registry.applicationIDs(executing: path)
            return ids.count == 1 ? String(ids[0].dropLast(".desktop".count)) : nil
        }
        if let pid, let app = ancestry.appBehindCLI(pid: Int32(bitPattern: pid), installedApp: installedApp) {
            let caller = Caller(pid: pid, appID: app, throughCLI: true)
            known.withLock { $0[sender] = caller }
            return caller
        }
        var appID = pid.flatMap { CallerIdentity.appID(pid: Int32(bitPattern: $0)) }
        // An executable path: the installed application that runs it, when exactly one does.
        if let path = appID, path.hasPrefix("/"), let app = installedApp(path) { appID = app }
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
