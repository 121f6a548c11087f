import Foundation
import Testing
import DBusTestSupport

/// Issue 27, item 1: the installed tree in a real systemd user session. A Debian 12 container
/// booted with systemd-nspawn, a user logged in through PAM (logind, `systemd --user`,
/// dbus-user-session's bus), this build installed with `make install PREFIX=~/.local`; then
/// `schemebridge open` bus-activates the service through systemd (`scripts/systemd-session-proof.sh`
/// does it and prints what the user saw; this test reads it). The container's root file system is
/// made once (debootstrap, network) and cached outside the clone in /var/cache/schemebridge-tests.
@Suite struct SystemdSessionTests {
    @Test func schemebridgeOpenBusActivatesTheInstalledUnitInALoginSession() async throws {
        // The tools it needs come from scripts/deps.sh: a missing one fails here, naming its package.
        for tool in ["debootstrap", "systemd-nspawn", "nsenter", "unshare"] { _ = try Tools.path(of: tool) }
        let script = Built.packageRoot.appendingPathComponent("scripts/systemd-session-proof.sh").path
        // A cold run downloads and unpacks ~150 MB (minutes); a warm one boots in seconds.
        let r = try await Tools.run(["/bin/bash", script], environment: ["BUILD_DIR": Built.programs.path], timeout: .seconds(1800))
        let out = r.stdout + r.stderr
        let lines = out.split(separator: "\n").map(String.init)
        func line(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } }
        #expect(r.status == 0, "\(out)")
        #expect(line("user manager: ") == "running", "\(out)")
        #expect(line("before: ") == "inactive", "\(out)")
        #expect(line("open: ") == "exit 0", "\(out)")
        #expect(line("received: ") == "probe://hello?x=1", "\(out)")
        #expect(line("after: ") == "active", "\(out)")
        // The bus name is owned by the installed program, in the installed user unit.
        #expect(line("Exe=") == "/home/tester/.local/bin/schemebridged", "\(out)")
        #expect(line("UserUnit=") == "schemebridged.service", "\(out)")
        // The CLI finds the bus at $XDG_RUNTIME_DIR/bus without DBUS_SESSION_BUS_ADDRESS.
        #expect(line("without DBUS_SESSION_BUS_ADDRESS: ") == "exit 0 yes", "\(out)")
        // The service logs to the journal (a successful open only at debug level: its start line); a
        // masked unit is exit 3 with a hint.
        #expect(out.contains("schemebridged: serving io.github.schemebridge.SchemeBridge1 at /io/github/schemebridge/SchemeBridge1"), "\(out)")
        #expect(!out.contains("schemebridged: opened "), "a successful open was logged at the default level: \(out)")
        let masked = line("masked: ") ?? ""
        #expect(masked.hasPrefix("exit 3 ") && masked.contains("org.freedesktop.systemd1.UnitMasked") && masked.contains("journalctl --user"),
                "\(out)")
    }
}
