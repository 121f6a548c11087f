import DBus
import DBusTestSupport
import Foundation
import Glibc

/// The real GSConnect service (Debian's `gnome-shell-extension-gsconnect`: `service/daemon.js`
/// run by gjs, no gnome-shell) on side B of a ``KDEConnectPair`` instead of a second kdeconnectd:
/// in B's namespace, on B's private bus (our service beside it), with B's HOME, a display of its
/// own (Xvfb: the service is a GtkApplication), its settings in a keyfile (no dconf), and a
/// debug log in B's root. Stopped by pid with the pair (its process is B's `engine`).
///
/// Traps learned running it beside kdeconnectd 22.12 (write them down, they are not obvious):
/// - GSConnect's default device id is a UUID with dashes; kdeconnectd turns the dashes into
///   underscores and, as TLS client, sends that as the server name (SNI), which GnuTLS on
///   GSConnect's side refuses ("A disallowed SNI server name has been received"): the TCP link
///   then never comes up, and payloads (files) fail. Its id is set here, dash-free, before its
///   first start (its certificate is made for that id).
/// - GSConnect sends identity packets only while `GNetworkMonitor` says the network is up,
///   which needs a default route: B's namespace gets one through A (no other route exists).
/// - GSConnect is told A's address (its `connect` action, `lan://10.78.0.1:1716`); A then opens
///   the TCP link, so kdeconnectd is the TLS server of the control link.
final class GSConnectSide: @unchecked Sendable {
    static let daemon = "/usr/share/gnome-shell/extensions/gsconnect@andyholmes.github.io/service/daemon.js"
    static let bus: BusName = "org.gnome.Shell.Extensions.GSConnect"
    static let servicePath: ObjectPath = "/org/gnome/Shell/Extensions/GSConnect"
    static let actions: InterfaceName = "org.gtk.Actions"
    static let device: InterfaceName = "org.gnome.Shell.Extensions.GSConnect.Device"

    let side: KDEConnectPair.Side
    let xvfb: Xvfb
    /// The id GSConnect announces (dash-free, see above): A's name for it.
    let id = "sbgsc" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(27)

    /// Starts GSConnect on `side` (B of a pair, announced as `sideB`) and waits for it on B's bus;
    /// `closingFix`: a copy patched to close each payload's connection once sent (``GSConnectClosingFix``).
    init(on side: KDEConnectPair.Side, via gateway: String, closingFix: Bool = false) async throws {
        guard FileManager.default.fileExists(atPath: Self.daemon) else {
            throw ToolError("\(Self.daemon) is missing: install gnome-shell-extension-gsconnect (scripts/deps.sh)")
        }
        self.side = side
        let daemon = closingFix ? try await GSConnectClosingFix.daemon(in: side.fixture.root) : Self.daemon
        let settings = side.fixture.configHome.appendingPathComponent("glib-2.0/settings")
        try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
        try "[org/gnome/shell/extensions/gsconnect]\nname='sideB'\nid='\(id)'\ndebug=true\n"
            .write(to: settings.appendingPathComponent("keyfile"), atomically: true, encoding: .utf8)
        let route = try await Tools.run(["ip", "-n", side.namespace, "route", "add", "default", "via", gateway], timeout: .seconds(60))
        guard route.succeeded else { throw ToolError("no default route in \(side.namespace): \(route.stderr)") }
        xvfb = try Xvfb()
        var env = ProcessInfo.processInfo.environment
        for key in ["WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] { env.removeValue(forKey: key) }
        for (k, v) in side.fixture.environment { env[k] = v }
        env["DBUS_SESSION_BUS_ADDRESS"] = side.fixture.bus.address
        env["DISPLAY"] = xvfb.display
        env["GDK_BACKEND"] = "x11"
        env["GSETTINGS_BACKEND"] = "keyfile"
        env["GSETTINGS_SCHEMA_DIR"] = "/usr/share/glib-2.0/schemas"
        side.engine = try ChildProcess([try Tools.path(of: "ip"), "netns", "exec", side.namespace, "/usr/bin/env", "-C", side.fixture.root.path,
                                        try Tools.path(of: "gjs"), daemon], environment: env, stdout: log, stderr: log)
        if side.connection == nil { side.connection = try await Connection.connect(address: side.fixture.bus.address) }
        let driver = BusDriver(side.connection)
        guard await Tools.eventually({ (try? await driver.nameHasOwner(Self.bus.rawValue)) == true }) else {
            throw ToolError("GSConnect did not come onto its bus: \(serviceLog.suffix(3000))")
        }
        // Owning its name is not being ready: GApplication takes the name before it runs
        // `startup`, where GSConnect adds its actions (daemon.js, _initActions); the test waits
        // until the service's exported action group lists the `connect` action it uses.
        guard await Tools.eventually({ await self.actionNames().contains("connect") }) else {
            throw ToolError("GSConnect owns its name but never exported its 'connect' action: \(serviceLog.suffix(3000))")
        }
    }

    /// The actions GSConnect's application exports now (org.gtk.Actions.List), none on failure.
    func actionNames() async -> [String] {
        let reply = try? await side.connection.call(destination: Self.bus, path: Self.servicePath, interface: Self.actions, member: "List",
                                                    timeout: Tools.engineReplyCeiling)
        return (reply?.first?.arrayElements ?? []).compactMap(\.string)
    }

    var log: String { side.fixture.root.appendingPathComponent("gsconnect.log").path }
    /// What GSConnect logged.
    var serviceLog: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Activates an action of GSConnect's (the application's, or a device's at `path`).
    func activate(_ action: String, _ parameter: DBusValue? = nil, at path: ObjectPath = GSConnectSide.servicePath) async throws {
        do {
            _ = try await side.connection.call(destination: Self.bus, path: path, interface: Self.actions, member: "Activate",
                                               [.string(action), .array(element: .variant, parameter.map { [.variant($0)] } ?? []), .vardict([:])],
                                               timeout: Tools.engineReplyCeiling)
        } catch {
            throw ToolError("GSConnect's action '\(action)' at \(path.rawValue) failed: \(error.name.rawValue): \(error.message)\n\(serviceLog.suffix(3000))")
        }
    }

    /// The object of the device `id` in GSConnect.
    func devicePath(_ id: String) throws -> ObjectPath { try ObjectPath("/org/gnome/Shell/Extensions/GSConnect/Device/\(id)") }

    /// A property of the device `id` as GSConnect exports it.
    func deviceProperty(_ id: String, _ name: String) async -> DBusValue? {
        guard let path = try? devicePath(id) else { return nil }
        return try? await side.connection.call(destination: Self.bus, path: path, interface: .properties, member: "Get",
                                               [.string(Self.device.rawValue), .string(name)], timeout: Tools.engineReplyCeiling).first?.unwrapped
    }

    /// Tells GSConnect where `peer` (a kdeconnectd side) is, pairs the two over D-Bus (GSConnect
    /// asks, kdeconnectd accepts) and waits until both trust each other and kdeconnectd has
    /// loaded GSConnect's share plugin.
    func connectAndPair(with peer: KDEConnectPair.Side) async throws {
        try await activate("connect", .string("lan://\(peer.address):1716"))
        guard await Tools.eventually({ await self.deviceProperty(peer.id, "Connected")?.bool == true }) else {
            throw ToolError("GSConnect never connected to \(peer.address): \(serviceLog.suffix(3000)) \(peer.engineLog.suffix(1500))")
        }
        try await activate("pair", at: try devicePath(peer.id))
        let onPeer = try ObjectPath("/modules/kdeconnect/devices/\(id)")
        guard await Tools.eventually({ (try? await peer.call(onPeer, KDEConnectPair.device, "hasPairingRequests").first?.bool) == true }) else {
            throw ToolError("kdeconnectd got no pairing request from GSConnect: \(peer.engineLog.suffix(2000))")
        }
        _ = try await peer.call(onPeer, KDEConnectPair.device, "acceptPairing")
        guard await Tools.eventually({ await self.deviceProperty(peer.id, "Paired")?.bool == true }),
              await Tools.eventually({ await peer.deviceProperty(self.id, "isTrusted")?.bool == true }),
              await Tools.eventually({ await peer.hasSharePlugin(self.id) }) else {
            throw ToolError("pairing GSConnect with kdeconnectd did not complete: \(serviceLog.suffix(3000)) \(peer.engineLog.suffix(1500))")
        }
    }

    /// GSConnect's payload connections still open, as `ss` lists them in B's namespace (its
    /// transfer ports 1739–1764; "none" when there are none). GSConnect 54 closes a payload's TCP
    /// connection only when gjs collects it, and kdeconnectd 22.12 finishes a file only at that
    /// close (docs/GUIDE.md, "When a file does not arrive"): for a stall's message.
    func openPayloadConnections() async -> String {
        let r = try? await Tools.run(["ss", "-N", side.namespace, "-tn", "state", "established", "( sport >= :1739 and sport <= :1764 )"],
                                     timeout: .seconds(60))
        let rows = (r?.stdout ?? "").split(separator: "\n").dropFirst().map { $0.split(separator: " ").joined(separator: " ") }
        return r == nil ? "unknown (ss failed)" : rows.isEmpty ? "none" : rows.joined(separator: "; ")
    }

    /// Stops GSConnect (by pid) and waits for it to leave B's bus; stops the display.
    func stop() async {
        side.engine?.terminate()
        side.engine = nil
        if let connection = side.connection {
            _ = await Tools.eventually { (try? await BusDriver(connection).nameHasOwner(Self.bus.rawValue)) == false }
        }
        xvfb.stop()
    }
}
