import ArgumentParser
import DBus
import SchemeBridgeContract

/// Options every subcommand that talks to the service accepts.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The D-Bus address of the session bus (default: $DBUS_SESSION_BUS_ADDRESS, else the socket $XDG_RUNTIME_DIR/bus).", valueName: "address"))
    var address: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the service's reply.", valueName: "seconds"))
    var timeout: Double = 30

    /// Connects to the bus that the options name.
    func client() throws(Reported) -> SchemeBridgeBlockingClient {
        try ServiceClient.connect(address: address, timeout: timeout)
    }

    /// Connects and runs `body`. A D-Bus error from `body` is reported as "`subject`: message"
    /// and ends the command with the matching exit status.
    func withService<T>(_ subject: @autoclosure () -> String, _ body: (SchemeBridgeBlockingClient) throws(DBusError) -> T) throws -> T {
        let service = try client()
        do {
            return try body(service)
        } catch {
            throw ServiceClient.report(error, subject())
        }
    }
}

/// `--json`: machine-readable output.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false
}
