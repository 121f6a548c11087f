import Foundation
import DBusTestSupport

/// The real desktop portal around a ``FlatpakFixture`` (issue 40's harness): Debian 12's
/// xdg-desktop-portal (1.16) and xdg-desktop-portal-gtk on the fixture's private bus, started by
/// the bus's own activation files inside its mount namespace, with a private portals directory
/// (`XDG_DESKTOP_PORTAL_DIR`) and a desktop name of its own (`XDG_CURRENT_DESKTOP=X-SBTest`): 1.16
/// has no `portals.conf` and takes the backend of each interface from the `.portal` files whose
/// `UseIn=` names the current desktop. The GTK backend draws its dialogs on a private Xvfb.
/// xdg-permission-store and the document portal come with the Flatpak fixture.
///
/// A real `flatpak run` app with no `--talk-name` (org.test.NoTalk) reaches the portal: inside the
/// sandbox `org.freedesktop.portal.*` is always reachable (``sandboxedPortalCall(_:_:_:_:)``).
/// ``monitor(interface:)`` records the calls the frontend makes to a backend.
final class PortalFixture: @unchecked Sendable {
    let flatpak: FlatpakFixture
    let xvfb: Xvfb
    /// The private portals directory (`XDG_DESKTOP_PORTAL_DIR`).
    let portals: URL
    /// The accessibility bus the GTK backend's dialogs are read through (``init(currentDesktop:readable:)``).
    let accessibility: AccessibilityBus?
    /// The desktop the `.portal` files are for.
    static let desktop = "X-SBTest"
    static let portalName = "org.freedesktop.portal.Desktop"
    static let portalPath = "/org/freedesktop/portal/desktop"
    static let gtkName = "org.freedesktop.impl.portal.desktop.gtk"
    private var monitors: [ChildProcess] = []

    var service: ServiceFixture { flatpak.service }

    /// `currentDesktop`: the portal's `XDG_CURRENT_DESKTOP` (1.16 takes each interface's backend
    /// from the first desktop some `.portal` file's `UseIn=` names: `X-SchemeBridge:X-SBTest`
    /// puts SchemeBridge's shipped `schemebridge.portal` first, as `integrate --portal` does on 1.16).
    /// `readable`: an accessibility bus (``accessibility``) for reading the GTK backend's dialogs as a
    /// screen reader does; without it the backend runs with `NO_AT_BRIDGE=1`.
    init(currentDesktop: String = PortalFixture.desktop, readable: Bool = false) async throws {
        for program in ["/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-gtk"] where !FileManager.default.isExecutableFile(atPath: program) {
            throw ToolError("\(program) is missing; run: apt-get install -y xdg-desktop-portal xdg-desktop-portal-gtk (make deps)")
        }
        flatpak = try await FlatpakFixture()
        xvfb = try Xvfb(width: 800, height: 600)
        portals = flatpak.service.root.appendingPathComponent("portals")
        try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
        // Up before the GTK backend starts (GTK looks for it as it starts).
        accessibility = readable ? try await AccessibilityBus(sessionBus: flatpak.service.bus.address, display: xvfb.display) : nil
        // The GTK backend's own .portal file, for this desktop.
        let gtk = try String(contentsOfFile: "/usr/share/xdg-desktop-portal/portals/gtk.portal", encoding: .utf8)
        try addPortal("gtk", gtk.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("UseIn=") ? "UseIn=\(Self.desktop)" : String($0) }.joined(separator: "\n"))
        // The tree's XDG_DATA_DIRS leaves /usr/share out, where GLib finds its settings schemas
        // (without them both abort); settings are kept in memory, not in the user's dconf.
        let env = "\(try Tools.path(of: "env")) GSETTINGS_SCHEMA_DIR=/usr/share/glib-2.0/schemas GSETTINGS_BACKEND=memory XDG_CURRENT_DESKTOP=\(currentDesktop)"
        try flatpak.service.bus.addService(name: Self.portalName, exec: "\(env) XDG_DESKTOP_PORTAL_DIR=\(portals.path) /usr/libexec/xdg-desktop-portal")
        let bridge = readable ? "" : " NO_AT_BRIDGE=1"
        try flatpak.service.bus.addService(name: Self.gtkName, exec: "\(env) DISPLAY=\(xvfb.display) GDK_BACKEND=x11\(bridge) /usr/libexec/xdg-desktop-portal-gtk")
    }

    deinit { stop() }

    func stop() {
        for m in monitors { m.terminate() }
        monitors = []
        accessibility?.stop()
        flatpak.stop()
        xvfb.stop()
    }

    /// Adds `NAME.portal` (a backend's `[portal]` group: `DBusName`, `Interfaces`, `UseIn`) to the
    /// private portals directory; the frontend reads them when it starts (its first call).
    func addPortal(_ name: String, _ text: String) throws {
        try text.write(to: portals.appendingPathComponent("\(name).portal"), atomically: true, encoding: .utf8)
    }

    /// `gdbus call` of `interface.method` on the portal from inside app `appID`'s sandbox.
    func sandboxedPortalCall(_ appID: String, _ interface: String, _ method: String, _ arguments: [String]) async throws -> ProcessResult {
        try await flatpak.flatpak(["run", "--command=gdbus", appID, "call", "--session", "--timeout", "300", "--dest", Self.portalName,
                                   "--object-path", Self.portalPath, "--method", "\(interface).\(method)"] + arguments)
    }

    /// Starts a `dbus-monitor` of the method calls to `interface` (e.g.
    /// `org.freedesktop.impl.portal.AppChooser`) and returns the file it writes, once the bus
    /// has made it a monitor (its log says so).
    func monitor(interface: String) async throws -> URL {
        try await monitor(match: "type='method_call',interface='\(interface)'")
    }

    /// A `dbus-monitor` of the messages `match` selects (e.g. the portal's `Response` signals).
    func monitor(match: String) async throws -> URL {
        let out = service.root.appendingPathComponent("monitor-\(monitors.count).log")
        let m = try ChildProcess([try Tools.path(of: "dbus-monitor"), "--address", service.bus.address, match],
                                 environment: ProcessInfo.processInfo.environment, stdout: out.path, stderr: out.path + ".err")
        monitors.append(m)
        let log = service.bus.directory.appendingPathComponent("daemon.log")
        let ready = await Tools.eventually {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").contains { $0.contains("pid=\(m.pid) ") && $0.contains("became a monitor") }
        }
        guard ready else { throw ToolError("dbus-monitor (pid \(m.pid)) never became a monitor: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")") }
        return out
    }

    /// Installs SchemeBridge's shipped `dbus/schemebridge.portal` unchanged (`UseIn=X-SchemeBridge`).
    func addSchemeBridgePortal() throws {
        try addPortal("schemebridge", try String(contentsOf: Built.packageRoot.appendingPathComponent("dbus/schemebridge.portal"), encoding: .utf8))
    }

    /// Marks `contentType` always-ask in the permission store's `desktop-used-apps` table (the
    /// frontend then asks its AppChooser backend each time, whatever the default, the number of
    /// candidates or the choices counted so far).
    func alwaysAsk(_ contentType: String) async throws {
        let r = try await Tools.run(["gdbus", "call", "--address", service.bus.address, "--dest", "org.freedesktop.impl.portal.PermissionStore",
                                     "--object-path", "/org/freedesktop/impl/portal/PermissionStore",
                                     "--method", "org.freedesktop.impl.portal.PermissionStore.SetValue", "desktop-used-apps", "true", contentType,
                                     "<{'always-ask': <true>}>"])
        guard r.status == 0 else { throw ToolError("PermissionStore.SetValue failed: \(r.stdout) \(r.stderr)") }
    }

    /// What the bus and the services it started (the portal, its backends) wrote to standard error.
    var busLog: String { (try? String(contentsOf: service.bus.directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? "" }

    /// SchemeBridge's unique name, the service started first (by a call: the bus starts it) when
    /// it is not running yet.
    func schemeBridge() async throws -> String {
        if let ours = try await owner(of: ServiceFixture.name) { return ours }
        let r = try await service.gdbus("CanOpenURL", "todolist://x")
        guard r.status == 0, let ours = try await owner(of: ServiceFixture.name) else { throw ToolError("SchemeBridge did not start: \(r.stderr)") }
        return ours
    }

    /// The unique name owning `name` on the bus, or nil.
    func owner(of name: String) async throws -> String? {
        let r = try await Tools.run(["gdbus", "call", "--address", service.bus.address, "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                     "--method", "org.freedesktop.DBus.GetNameOwner", name])
        guard r.status == 0 else { return nil }
        return r.stdout.split(separator: "'").dropFirst().first.map(String.init)
    }
}
