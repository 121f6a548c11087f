import Foundation
import DBusTestSupport

/// systemd's part in bus activation, played on a private bus started with `systemdActivation`
/// (the host has no systemd user manager): it owns `org.freedesktop.systemd1`, hears each
/// `ActivationRequest(unit)` the bus sends, notes the unit, and does what `systemd --user` does —
/// starts the unit file's `ExecStart=` found in `unitDirectory` (a path below `root`, for an
/// installed tree under DESTDIR), or answers `ActivationFailure(unit, NoSuchUnit, …)` when
/// there is no such unit. The program it starts gets `environment` and the bus's address.
final class FakeSystemd: @unchecked Sendable {
    let log: URL
    private let process: ChildProcess

    static let script = """
        import os, shlex, subprocess, sys
        import dbus, dbus.bus, dbus.lowlevel
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib
        DBusGMainLoop(set_as_default=True)
        address, log, unitdir, root = sys.argv[1:5]
        bus = dbus.bus.BusConnection(address)
        def note(line):
            with open(log, 'a') as f: f.write(line + '\\n')
        def request(unit):
            note('request ' + unit)
            path = os.path.join(unitdir, unit) if unitdir else ''
            if not path or not os.path.isfile(path):
                m = dbus.lowlevel.SignalMessage('/org/freedesktop/systemd1', 'org.freedesktop.systemd1.Activator', 'ActivationFailure')
                m.set_destination('org.freedesktop.DBus')
                m.append(unit, 'org.freedesktop.systemd1.NoSuchUnit', 'Unit %s not found.' % unit)
                bus.send_message(m)
                return
            lines = [l.strip() for l in open(path)]
            argv = shlex.split([l for l in lines if l.startswith('ExecStart=')][0][len('ExecStart='):])
            argv[0] = root + argv[0]
            note('start ' + ' '.join(argv))
            subprocess.Popen(argv, env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address), stdin=subprocess.DEVNULL)
        bus.add_signal_receiver(request, 'ActivationRequest', 'org.freedesktop.systemd1.Activator')
        bus.request_name('org.freedesktop.systemd1')
        note('ready')
        GLib.MainLoop().run()
        """

    /// Starts playing systemd on `bus` once it owns the name (returns then).
    init(bus: PrivateBus, unitDirectory: String? = nil, root: String = "", environment: [String: String] = [:]) async throws {
        log = bus.directory.appendingPathComponent("systemd.log")
        let err = bus.directory.appendingPathComponent("systemd.err")
        process = try Tools.spawn([Tools.systemPython, "-c", Self.script, bus.address, log.path, unitDirectory ?? "", root],
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
