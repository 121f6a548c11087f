import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` for one test or suite: its own config file, socket, and
/// service directory in a fresh temporary folder. Its address is passed to code
/// explicitly; the user's session bus is never touched.
public final class PrivateBus: @unchecked Sendable {
    /// The bus address, e.g. `unix:path=/tmp/sb-bus-XXXX/bus`.
    public let address: String
    /// The temporary folder holding the socket, the config and ``serviceDirectory``.
    public let directory: URL
    /// The folder searched for bus-activation `.service` files.
    public let serviceDirectory: URL
    private let process: ChildProcess
    /// The `HOME` entries of the services this bus may start (its own home, the one it was given).
    private let serviceHomes: Set<String>

    /// Starts a bus. `environment` is added to the daemon's own, so that services it
    /// activates inherit it (e.g. XDG variables of a test tree). `anyUser`: clients of any uid
    /// may connect (an attacker run as `nobody` beside a service run as the test's user); by
    /// default only the daemon's own uid may, as on a real session bus. `systemdActivation`: the
    /// bus starts services that name a `SystemdService=` by asking `org.freedesktop.systemd1` (an
    /// `ActivationRequest` signal), as a systemd user session's bus does; the test plays systemd.
    /// `unset`: variables removed from the daemon's environment (after `environment` is added).
    /// `launcher`: a command the daemon runs under (its argv is appended; it must `exec` it), e.g.
    /// one that gives the bus and everything it activates a mount namespace of its own.
    /// `ownHome`: the daemon — and so what it activates — runs with ``userEnvironment`` (before
    /// `environment`), not with the real user's home.
    public init(environment: [String: String] = [:], anyUser: Bool = false, systemdActivation: Bool = false, unset: [String] = [],
                launcher: [String] = [], ownHome: Bool = false) throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        directory = dir
        serviceDirectory = dir.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: serviceDirectory, withIntermediateDirectories: true)
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <keep_umask/>
              <listen>unix:path=\(dir.path)/bus</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(serviceDirectory.path)</servicedir>
              <!-- A real session bus's limits (Debian's session.conf): messages up to ~1 GB,
                   50,000 calls awaiting replies per connection. -->
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <limit name="max_message_size">1000000000</limit>
              <limit name="max_incoming_unix_fds">250000000</limit>
              <limit name="max_outgoing_unix_fds">250000000</limit>
              <limit name="max_replies_per_connection">50000</limit>
              <policy context="default">\(anyUser ? "\n    <allow user=\"*\"/>" : "")
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configURL = dir.appendingPathComponent("bus.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)

        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        if ownHome { for (k, v) in Self.userEnvironment(dir) { env[k] = v } }
        for (k, v) in environment { env[k] = v }
        serviceHomes = Set([Self.userEnvironment(dir)["HOME"], environment["HOME"]].compactMap { $0.map { "HOME=" + $0 } })
        for k in unset { env.removeValue(forKey: k) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ToolError("pipe failed") }
        let p: ChildProcess
        do {
            p = try ChildProcess(
                launcher + [try Tools.path(of: "dbus-daemon"), "--config-file=\(configURL.path)", "--nofork", "--nopidfile", "--print-address=1"]
                    + (systemdActivation ? ["--systemd-activation"] : []),
                environment: env, stderr: dir.appendingPathComponent("daemon.log").path, stdoutFD: fds[1])
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        process = p
        // The daemon prints its address once it listens.
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(fds[0], &byte, 1) == 1 && byte != 0x0A { line.append(byte) }
        close(fds[0])
        let text = String(decoding: line, as: UTF8.self)
        guard !text.isEmpty else {
            p.terminate()
            throw ToolError("dbus-daemon did not start (config \(configURL.path))")
        }
        address = text
        if anyUser { chmod(dir.path, 0o755); chmod(dir.path + "/bus", 0o777) }
    }

    /// The environment a client of this bus needs (`DBUS_SESSION_BUS_ADDRESS`).
    public var clientEnvironment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// A user's own folders for a program a test starts on this bus — `HOME` and the XDG base
    /// directories under ``directory`` (`home/`), removed with it — so that a program falling
    /// back to `$HOME` (its config, state, cache) never writes into the real user's.
    public var userEnvironment: [String: String] { Self.userEnvironment(directory) }

    private static func userEnvironment(_ directory: URL) -> [String: String] {
        let home = directory.appendingPathComponent("home").path
        return ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
                "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache"]
    }

    /// Writes a bus-activation file for `name` running `exec`.
    public func addService(name: String, exec: String) throws {
        let text = "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
        try text.write(to: serviceDirectory.appendingPathComponent("\(name).service"), atomically: true, encoding: .utf8)
    }

    /// The daemon's process id.
    public var pid: Int32 { process.pid }

    /// Stops the daemon, waits (up to ``Tools/eventCeiling``) until the services it leaves
    /// have exited, then removes its folder. Those services are the `schemebridged` processes
    /// whose `HOME` is the bus's own home (``userEnvironment``) or the one its `environment`
    /// gave: once the bus is gone the service writes its registry index into `$HOME/.cache` and
    /// exits, which would make a folder removed first again (``HeldProcesses``). Only they are
    /// waited for: a handler a test holds (e.g. on a gate in the test's folder) may outlive them.
    public func stop() {
        process.terminate()
        let services = HeldProcesses(named: "schemebridged", withEnvironment: serviceHomes)
        let killed = services.waitForExit(ceiling: Tools.eventCeiling)
        if !killed.isEmpty {
            FileHandle.standardError.write(Data("PrivateBus: schemebridged \(killed) still ran \(Tools.eventCeiling) after its bus stopped; killed\n".utf8))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
