import DBus
import SchemeBridgeContract

/// The SchemeBridge service as seen from the command line: one blocking connection to the
/// session bus (no loop thread, no tasks: a CLI makes a call or two and exits) through the
/// contract's typed ``SchemeBridgeBlockingClient``. Errors come back as ``DBusError``s.
public enum ServiceClient {

    /// The bus address to use: `address`, else the session bus of the environment
    /// (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`, as GDBus and sd-bus find it).
    /// A missing bus is reported (status 3) with what to do about it.
    public static func busAddress(_ address: String?) throws(Reported) -> String {
        // The common case first, without building the environment's dictionary (the lean
        // `open` path counts its microseconds): the variable the full rule reads first.
        if let address = address ?? Terminal.environment("DBUS_SESSION_BUS_ADDRESS") { return address }
        guard let address = address ?? Connection.processSessionBusAddress() else {
            Terminal.error("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus "
                + "(run inside a desktop session, or pass --address)")
            throw Reported(status: .noHandler)
        }
        return address
    }

    /// `seconds` as a call timeout (30 s when unusable).
    public static func timeout(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds.isFinite && seconds > 0 ? min(seconds, 86_400) : 30) * 1000))
    }

    /// Connects to the bus at `address`, or the session bus of the environment. An unreachable
    /// bus is reported (status 3).
    public static func connect(address: String?, timeout seconds: Double) throws(Reported) -> SchemeBridgeBlockingClient {
        let address = try busAddress(address)
        do {
            return SchemeBridgeBlockingClient(connection: try BlockingConnection(address: address), timeout: timeout(seconds))
        } catch {
            Terminal.error("cannot connect to the session bus at \(address): \(error.message)")
            throw Reported(status: .noHandler)
        }
    }

    /// The message to show for a D-Bus error, with advice where the bus itself failed.
    public static func explain(_ error: DBusError) -> String {
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            return "the SchemeBridge service is not available on this session bus (\(error.message)); "
                + "install it with `make install PREFIX=~/.local` so the bus can start it, or run `schemebridged`"
        case .noReply:
            return "the SchemeBridge service did not answer in time (\(error.message))"
        case _ where isActivationFailure(error.name):
            return "the session bus could not start the SchemeBridge service (\(error.name.rawValue): \(error.message)); "
                + "see why with `journalctl --user -u schemebridged` in a systemd session, or run `schemebridged` by hand; "
                + "`make install` puts the service file and the unit where the bus and systemd look"
        default:
            return error.message
        }
    }

    /// Whether `name` says that the bus could not start the service: the bus's own spawn
    /// errors (`org.freedesktop.DBus.Error.Spawn.*`: the program is missing, exited or crashed
    /// before taking the name, the service file is broken), an activation that timed out, or
    /// systemd's refusal passed on by the bus (`org.freedesktop.systemd1.*`: no such unit, masked).
    public static func isActivationFailure(_ name: ErrorName) -> Bool {
        name.rawValue.hasPrefix("org.freedesktop.DBus.Error.Spawn.") || name.rawValue.hasPrefix("org.freedesktop.systemd1.")
            || name.rawValue == "org.freedesktop.DBus.Error.TimedOut"
    }

    /// Reports `error` for `subject` and returns the failure to throw.
    public static func report(_ error: DBusError, _ subject: String) -> Reported {
        Terminal.error("\(subject): \(explain(error))", dbusError: error.name.rawValue)
        return Reported(status: ExitStatus(error))
    }
}
