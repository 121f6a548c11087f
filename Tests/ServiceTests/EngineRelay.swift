import DBus
import DBusTestSupport
import Foundation
import Glibc

/// How a stand-in device engine (``FakeKDEConnect``, ``FakeGSConnect``, or a test's own
/// connection) reaches the bus: its connection runs through a relay process (libdbus's
/// `unixexec:` transport talks to the relay's stdin and stdout; the relay connects to the bus
/// socket), so the process the bus — and our service's ``EngineCheck`` — sees as the name's
/// owner is the relay. Whether the service accepts the stand-in as the engine is then decided by
/// that real process, as for a real engine:
/// - ``trustedKDEConnect``: a copy of `systemd-stdio-bridge` named `kdeconnectd` in a folder
///   of root's (a protected `kdeconnectd`, as a package installs it) — accepted.
/// - ``trustedGSConnect``: the system's gjs running a relay script installed, root's, as
///   `…/gsconnect@andyholmes.github.io/service/daemon.js` — accepted.
/// - ``kdeconnectOfAnotherUser``, ``gsconnectOfAnotherUser``: the same, but the file owned by
///   another uid (`nobody`): what a user's program could write — refused.
/// - ``pythonScript``: the system's python3 running a relay script (a plain script claiming
///   the name, the attack of issue 37) — refused.
/// Each relay lives in a folder of its own, removed by ``remove()``.
struct EngineRelay: Sendable {
    enum Kind: Sendable {
        case trustedKDEConnect, kdeconnectOfAnotherUser, trustedGSConnect, gsconnectOfAnotherUser, pythonScript
    }

    /// The folder holding the relay.
    let folder: String
    /// The address the stand-in connects to.
    let address: String

    /// Makes the relay for the bus at `busAddress` (`unix:path=…`).
    init(_ kind: Kind, busAddress: String) throws {
        guard let socket = busAddress.split(separator: ",").first.flatMap({ $0.hasPrefix("unix:path=") ? String($0.dropFirst(10)) : nil }) else {
            throw ToolError("not a unix:path= bus address: \(busAddress)")
        }
        var template = Array(URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-engine-XXXXXX").path.utf8CString)
        guard let made = mkdtemp(&template) else { throw ToolError("mkdtemp: \(String(cString: strerror(errno)))") }
        folder = String(cString: made)
        chmod(folder, 0o755)  // root's, in a temporary directory root's and sticky as /tmp is (scripts/tmp-guard.sh's too): protected
        let escape = Connection.escapedAddressValue
        let nobody: uid_t = 65534
        switch kind {
        case .trustedKDEConnect, .kdeconnectOfAnotherUser:
            let program = folder + "/kdeconnectd"
            try FileManager.default.copyItem(atPath: "/usr/bin/systemd-stdio-bridge", toPath: program)
            chmod(program, 0o755)
            if kind == .kdeconnectOfAnotherUser { chown(program, nobody, nobody) }
            address = "unixexec:path=\(escape(program)),argv1=\(escape("--bus-path=unix:path=" + socket))"
        case .trustedGSConnect, .gsconnectOfAnotherUser:
            let service = folder + "/gnome-shell/extensions/gsconnect@andyholmes.github.io/service"
            try FileManager.default.createDirectory(atPath: service, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try Self.gjsRelay.write(toFile: service + "/daemon.js", atomically: false, encoding: .utf8)
            chmod(service + "/daemon.js", 0o755)
            if kind == .gsconnectOfAnotherUser { chown(service + "/daemon.js", nobody, nobody) }
            address = "unixexec:path=/usr/bin/gjs,argv1=\(escape(service + "/daemon.js")),argv2=\(escape(socket))"
        case .pythonScript:
            try Self.pythonRelay.write(toFile: folder + "/notes-sync.py", atomically: false, encoding: .utf8)
            address = "unixexec:path=/usr/bin/python3,argv1=\(escape(folder + "/notes-sync.py")),argv2=\(escape(socket))"
        }
    }

    /// Removes the relay's folder (a running relay keeps its file).
    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    /// Relays stdin/stdout to and from the bus socket `ARGV[0]` (gjs).
    static let gjsRelay = """
        const {Gio, GLib} = imports.gi;
        const connection = new Gio.SocketClient().connect(Gio.UnixSocketAddress.new(ARGV[0]), null);
        const loop = GLib.MainLoop.new(null, false);
        const stdin = new Gio.UnixInputStream({fd: 0, close_fd: false});
        const stdout = new Gio.UnixOutputStream({fd: 1, close_fd: false});
        const flags = Gio.OutputStreamSpliceFlags.NONE;
        connection.get_output_stream().splice_async(stdin, flags, GLib.PRIORITY_DEFAULT, null, () => loop.quit());
        stdout.splice_async(connection.get_input_stream(), flags, GLib.PRIORITY_DEFAULT, null, () => loop.quit());
        loop.run();

        """

    /// Relays stdin/stdout to and from the bus socket `sys.argv[1]` (python3).
    static let pythonRelay = """
        import os, select, socket, sys
        bus = socket.socket(socket.AF_UNIX)
        bus.connect(sys.argv[1])
        to = {0: bus.fileno(), bus.fileno(): 1}
        while True:
            ready, _, _ = select.select(list(to), [], [])
            for fd in ready:
                data = os.read(fd, 65536)
                if not data:
                    sys.exit(0)
                while data:
                    data = data[os.write(to[fd], data):]

        """
}
