import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private sway (1.7, wlroots 0.15) for one test: its headless backend, no input devices, no
/// Xwayland, in a runtime directory of its own; stopped by its pid on ``stop()`` or deinit. Unlike
/// weston 10, it implements `xdg_activation_v1`, so Wayland focus can be tested for real.
///
/// sway refuses to run as root (it checks that it cannot regain root), so it runs as
/// ``compositorUID`` (nobody), like a user's compositor; the test's clients, as root, connect to
/// its socket all the same. The config is the test's: `focus_on_window_activation focus` (sway's
/// default, `urgent`, never moves focus on activation: nothing could be checked).
public final class Sway: @unchecked Sendable {
    /// The user sway runs as.
    public static let compositorUID: uid_t = 65534
    /// `XDG_RUNTIME_DIR` of the compositor and its clients (mode 0700, sway's).
    public let runtimeDirectory: URL
    /// The Wayland socket's name in ``runtimeDirectory`` (`WAYLAND_DISPLAY`).
    public let socket: String
    /// sway's IPC socket (`SWAYSOCK`, for `swaymsg -s`).
    public let ipcSocket: String
    private let folder: URL
    private let process: ChildProcess

    /// Starts sway with `config` (lines of sway's config) and waits (up to `timeout`) until its
    /// Wayland and IPC sockets exist.
    public init(config: String = "focus_on_window_activation focus\nxwayland disable\n", timeout: Duration = Tools.eventCeiling) throws {
        let exe = try Tools.path(of: "sway")
        _ = try Tools.path(of: "swaymsg")
        let setpriv = try Tools.path(of: "setpriv")
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-sway-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let dir = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard chown(dir.path, Self.compositorUID, gid_t(Self.compositorUID)) == 0 else { throw ToolError("cannot give \(dir.path) to uid \(Self.compositorUID)") }
        runtimeDirectory = dir
        let configFile = folder.appendingPathComponent("config")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        chmod(configFile.path, 0o644)
        var env = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "DBUS_SESSION_BUS_ADDRESS"] { env.removeValue(forKey: key) }
        env["XDG_RUNTIME_DIR"] = dir.path
        env["HOME"] = dir.path
        env["WLR_BACKENDS"] = "headless"
        env["WLR_LIBINPUT_NO_DEVICES"] = "1"
        let log = folder.appendingPathComponent("sway.log")
        process = try ChildProcess([setpriv, "--reuid=\(Self.compositorUID)", "--regid=\(Self.compositorUID)", "--clear-groups", exe, "-d", "-c", configFile.path],
                                   environment: env, stdout: log.path, stderr: log.path)
        let deadline = ContinuousClock.now + timeout
        var found: (String, String)?
        while ContinuousClock.now < deadline, process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            if let wayland = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }),
               let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) {
                found = (wayland, dir.appendingPathComponent(ipc).path)
                break
            }
            usleep(20_000)
        }
        guard let found else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            process.stopBlocking()
            try? FileManager.default.removeItem(at: folder)
            throw ToolError("sway did not start (apt-get install -y sway): \(text.suffix(800))")
        }
        (socket, ipcSocket) = found
    }

    /// What a Wayland client of this compositor needs: `XDG_RUNTIME_DIR` and `WAYLAND_DISPLAY`
    /// (unset `DISPLAY` too: there is no X11 here).
    public var clientEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": socket]
    }

    /// What sway logged (`-d`: wlroots' debug lines too, e.g. "Rejecting activate request").
    public var log: String { (try? String(contentsOf: folder.appendingPathComponent("sway.log"), encoding: .utf8)) ?? "" }

    /// `swaymsg ARGS…` against this sway.
    public func swaymsg(_ arguments: [String]) async throws -> ProcessResult {
        try await Tools.run(["swaymsg", "-s", ipcSocket] + arguments)
    }

    /// The app id of the window that has the focus (`swaymsg -t get_tree`: the node with
    /// `"focused": true`); nil when no window has it (a workspace or output does).
    public func focusedAppID() async throws -> String? {
        let r = try await swaymsg(["-t", "get_tree"])
        guard r.status == 0, let tree = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw ToolError("swaymsg -t get_tree failed (\(r.status)): \(r.stderr)")
        }
        func focused(_ node: [String: Any]) -> [String: Any]? {
            if node["focused"] as? Bool == true { return node }
            for key in ["nodes", "floating_nodes"] {
                for child in node[key] as? [[String: Any]] ?? [] { if let hit = focused(child) { return hit } }
            }
            return nil
        }
        return focused(tree)?["app_id"] as? String
    }

    /// Stops sway (SIGTERM, by its pid; SIGKILL if it has not ended after 10 s), which ends its
    /// clients' connections, then removes its folder.
    public func stop() {
        process.stopBlocking()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}
