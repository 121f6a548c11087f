import Foundation
import DBusTestSupport

/// systemd's part in bus activation, played on a private bus started with `systemdActivation`
/// (the host has no systemd user manager): it owns `org.freedesktop.systemd1`, hears each
/// `ActivationRequest(unit)` the bus sends, notes the unit, and does what `systemd --user` does —
/// starts the unit file's `ExecStart=` found in `unitDirectory` (a path below `root`, for an
/// installed tree under DESTDIR), or answers `ActivationFailure(unit, NoSuchUnit, …)` when
/// there is no such unit. The program it starts gets `environment` and the bus's address.
/// The python3-dbus client is `Clients/Support/fake-systemd.py`.
final class FakeSystemd: @unchecked Sendable {
    let log: URL
    private let process: ChildProcess

    /// Starts playing systemd on `bus` once it owns the name (returns then).
    init(bus: PrivateBus, unitDirectory: String? = nil, root: String = "", environment: [String: String] = [:]) async throws {
        log = bus.directory.appendingPathComponent("systemd.log")
        let err = bus.directory.appendingPathComponent("systemd.err")
        process = try Tools.spawn(Clients.command("Support/fake-systemd", [bus.address, log.path, unitDirectory ?? "", root]),
                                  environment: environment, stderr: err)
        let ready = await Tools.eventually { self.lines.contains("ready") }
        guard ready else {
            process.terminate()
            throw ToolError("the fake systemd did not start: \((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
        }
    }

    /// What it noted: `ready`, `request UNIT`, `start ARGV`.
    var lines: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() { process.terminate() }
}
