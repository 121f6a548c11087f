import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// How `schemebridge` reaches the service in a real session: the bus at `$XDG_RUNTIME_DIR/bus`
/// when no address is set (a systemd user session, as GDBus and sd-bus find it), and what the user
/// sees when the bus cannot start the service — by running `Exec=` itself or by asking systemd.
@Suite struct SessionBusTests {
    /// No address in the environment: only `XDG_RUNTIME_DIR` leads to a bus.
    static let noAddress = ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_STARTER_ADDRESS": "", "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""]

    static func cli(_ args: [String], _ environment: [String: String]) async throws -> ProcessResult {
        try await Tools.run([try Built.executable("schemebridge")] + args, environment: environment)
    }

    @Test func addressesOfRuntimeDirectoriesAreEscaped() {
        #expect(Connection.escapedAddressValue("/run/user/1000/bus") == "/run/user/1000/bus")
        #expect(Connection.escapedAddressValue("/tmp/a b,c;d=e%f\\g*h") == "/tmp/a%20b%2cc%3bd%3de%25f%5cg*h")
        #expect(Connection.sessionBusAddress(in: ["XDG_RUNTIME_DIR": "/nonexistent"]) == nil)
        #expect(Connection.sessionBusAddress(in: ["XDG_RUNTIME_DIR": "relative/dir"]) == nil)
        #expect(Connection.sessionBusAddress(in: ["XDG_RUNTIME_DIR": "/tmp", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
    }

    @Test func findsTheBusAtXDGRuntimeDirWhenNoAddressIsSet() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        // A runtime directory whose name needs escaping in an address (`,` `;` `=` and a space
        // separate an address's parts), its `bus` the private bus's socket.
        let runtime = f.root.appendingPathComponent("run user,1;x=y")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let empty = f.root.appendingPathComponent("run-empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: runtime.appendingPathComponent("bus").path,
                                                   withDestinationPath: f.bus.directory.appendingPathComponent("bus").path)
        var env = Self.noAddress
        env["XDG_RUNTIME_DIR"] = runtime.path
        let found = try await Self.cli(["can-open", "good://x"], env)
        #expect(found.status == 0 && found.stdout == "yes\n", "\(found.status) \(found.stdout) \(found.stderr)")
        let opened = try await Self.cli(["open", "good://1"], env)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(await f.recordedArgv("good") == ["good://1"])
        // An address in the environment wins over the runtime directory.
        let bare = try PrivateBus()
        defer { bare.stop() }
        env["DBUS_SESSION_BUS_ADDRESS"] = bare.address
        let explicit = try await Self.cli(["can-open", "good://x"], env)
        #expect(explicit.status == 3 && explicit.stderr.contains("not available"), "\(explicit.status) \(explicit.stderr)")
        // No address and no socket there: no session bus, status 3.
        env["DBUS_SESSION_BUS_ADDRESS"] = ""
        env["XDG_RUNTIME_DIR"] = empty.path
        let none = try await Self.cli(["open", "good://2"], env)
        #expect(none.status == 3 && none.stderr.contains("no session bus") && none.stderr.contains("XDG_RUNTIME_DIR/bus"),
                "\(none.status) \(none.stderr)")
    }

    /// What the user is told for each way activation fails: exit 3 (no service, as for xdg-open's
    /// "no tool"), the bus's error named, and where to look; never the bare libdbus text.
    static func expectActivationFailure(_ r: ProcessResult, _ errorName: String, _ comment: String) {
        #expect(r.status == 3, "\(comment): \(r.status) \(r.stderr)")
        #expect(r.stderr.contains("the session bus could not start the SchemeBridge service"), "\(comment): \(r.stderr)")
        #expect(r.stderr.contains(errorName), "\(comment): \(r.stderr)")
        #expect(r.stderr.contains("journalctl --user -u schemebridged") && r.stderr.contains("run `schemebridged` by hand"), "\(comment): \(r.stderr)")
    }

    @Test func activationFailuresWithoutSystemdAreStatusThreeWithAHint() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        var env = Self.noAddress
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        // The program named by Exec= is not there (a moved or half-removed install).
        try bus.addService(name: Contract.busName.rawValue, exec: bus.directory.appendingPathComponent("no-such/schemebridged").path)
        let missing = try await Self.cli(["open", "good://x"], env)
        Self.expectActivationFailure(missing, "org.freedesktop.DBus.Error.Spawn.", "missing program")
        // The program exits before it takes the name.
        let failing = bus.directory.appendingPathComponent("failing-service")
        try "#!/bin/sh\necho 'cannot start' >&2\nexit 1\n".write(to: failing, atomically: true, encoding: .utf8)
        chmod(failing.path, 0o755)
        try bus.addService(name: Contract.busName.rawValue, exec: failing.path)
        let exited = try await Self.cli(["can-open", "good://x"], env)
        Self.expectActivationFailure(exited, "org.freedesktop.DBus.Error.Spawn.ChildExited", "program exits 1")
        let json = try await Self.cli(["open", "--json", "good://x"], env)
        Self.expectActivationFailure(json, "org.freedesktop.DBus.Error.Spawn.ChildExited", "open --json")
    }

    @Test func activationThroughSystemdWithoutTheUnitIsStatusThreeWithAHint() async throws {
        let bus = try PrivateBus(systemdActivation: true, ownHome: true)
        defer { bus.stop() }
        // The shipped service file: SystemdService= names the unit; Exec= is what a bus without
        // systemd would run (here never: this bus asks systemd).
        let template = try String(contentsOf: Built.packageRoot.appendingPathComponent("dbus/" + Contract.serviceFileName + ".in"), encoding: .utf8)
        try template.replacingOccurrences(of: "@bindir@", with: Built.programs.path)
            .write(to: bus.serviceDirectory.appendingPathComponent(Contract.serviceFileName), atomically: true, encoding: .utf8)
        let systemd = try await FakeSystemd(bus: bus, unitDirectory: bus.directory.appendingPathComponent("no-units").path)
        defer { systemd.stop() }
        var env = Self.noAddress
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let r = try await Self.cli(["open", "good://x"], env)
        #expect(systemd.lines.contains("request schemebridged.service"), "\(systemd.lines)")
        Self.expectActivationFailure(r, "org.freedesktop.systemd1.NoSuchUnit", "no unit")
    }
}
