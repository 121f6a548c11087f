import Foundation
import DBusTestSupport

/// at-spi2-core's accessibility bus on a test's session bus — what a screen reader talks to, and
/// a test that reads a dialog as one does: `at-spi-bus-launcher` owning `org.a11y.Bus` there.
/// Start it before the GTK program to be read: GTK 3's atk-bridge looks for it as it starts.
struct AccessibilityBus {
    let launcher: ChildProcess
    /// The session bus it serves, and the display.
    let sessionBus: String, display: String
    /// The home and runtime folder of the launcher and the test's clients (removed by ``stop()``):
    /// without a runtime folder at-spi2-core and dconf fall back to `~/.cache`, the user's.
    let home: URL

    /// Starts the launcher for session bus `sessionBus` and display `display`; returns once it owns
    /// `org.a11y.Bus` (a GTK program that asks before then gives up on accessibility).
    init(sessionBus: String, display: String) async throws {
        let path = "/usr/libexec/at-spi-bus-launcher"
        guard FileManager.default.isExecutableFile(atPath: path) else { throw ToolError("at-spi2-core is not installed (apt-get install at-spi2-core)") }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sb-a11y-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("runtime"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let launcher: ChildProcess
        do {
            launcher = try Tools.spawn([path, "--launch-immediately"], environment: Self.environment(sessionBus, display, home))
        } catch {
            try? FileManager.default.removeItem(at: home)
            throw error
        }
        let launched = await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(sessionBus)", "--print-reply", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.a11y.Bus"])
            return r?.stdout.contains("boolean true") == true
        }
        guard launched else {
            launcher.terminate()
            try? FileManager.default.removeItem(at: home)
            throw ToolError("at-spi-bus-launcher never owned org.a11y.Bus")
        }
        (self.launcher, self.sessionBus, self.display, self.home) = (launcher, sessionBus, display, home)
    }

    /// Stops every process of this home — the launcher, the bus and registry it started, the
    /// clients given ``environment`` (SIGTERM; SIGKILL after 30 s) — and waits for them before
    /// removing it: one still running as it went once made the folder again (tmp-guard found it).
    func stop() {
        let started = HeldProcesses(named: nil, withEnvironment: ["HOME=\(home.path)"])
        launcher.terminate()
        started.terminate()
        started.waitForExit(ceiling: .seconds(30))
        try? FileManager.default.removeItem(at: home)
    }

    /// The environment a client of this accessibility bus runs with.
    var environment: [String: String] { Self.environment(sessionBus, display, home) }

    private static func environment(_ sessionBus: String, _ display: String, _ home: URL) -> [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": sessionBus, "DISPLAY": display, "HOME": home.path,
         "XDG_RUNTIME_DIR": home.appendingPathComponent("runtime").path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
         "XDG_CONFIG_HOME": home.appendingPathComponent("config").path]
    }

    /// Waits until application `app`'s frame titled `title` has a focused, editable text field
    /// holding `text` (nil: any text field has the focus) — an event, with a ceiling of minutes
    /// (`Support/a11y-text.py`) — and returns what the field holds; throws with what it held when
    /// that never comes.
    @discardableResult
    func focusedText(app: String, title: String, holding text: String? = nil) async throws -> String {
        let r = try await Tools.run(Clients.command("Support/a11y-text", [app, title] + (text.map { [$0] } ?? [])),
                                    environment: environment, timeout: .seconds(360))
        guard r.status == 0 else { throw ToolError("a11y-text: \(r.stderr)") }
        return String(r.stdout.dropLast(r.stdout.hasSuffix("\n") ? 1 : 0))
    }

    /// The process ids of the applications on the accessibility bus (`Support/a11y-apps.py`: the
    /// bus names them; none of them is asked).
    func applications() async throws -> [Int32] {
        let r = try await Tools.run(Clients.command("Support/a11y-apps", []), environment: environment)
        guard r.status == 0 else { throw ToolError("a11y-apps: \(r.stderr)") }
        return r.stdout.split(separator: "\n").compactMap { Int32($0) }
    }

    /// What a screen reader finds of application `app`'s frame titled `title` (`Support/a11y-tree.py`,
    /// which waits for it): one `ROLE<TAB>NAME` line per object that shows.
    func tree(app: String, title: String) async throws -> [String] {
        let r = try await Tools.run(Clients.command("Support/a11y-tree", [app, title]), environment: environment)
        guard r.status == 0 else { throw ToolError("a11y-tree: \(r.stderr)") }
        return r.stdout.split(separator: "\n").map(String.init)
    }
}
