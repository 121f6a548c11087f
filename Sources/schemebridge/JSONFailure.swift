import Glibc
import SchemeBridgeCLIKit

/// A failure under `--json`: besides the message on stderr, one object on stdout —
/// `{"error":{"exit_status":2,"reason":"not_found","dbus_error":null,"message":"…"}}` (``JSON/error(_:message:dbusError:)``) —
/// so a script reading the output always gets JSON. A command that printed objects of its own
/// (`open` prints one a URL, failed or not, its `error` member in it; `can-open` its answer) gets no second one.
enum JSONFailure {

    /// Whether the command line asks for JSON.
    static var requested: Bool {
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    /// Prints the failure object for a non-zero `status` under `--json` (once); `message` is
    /// added to the messages reported before.
    static func finish(_ status: Int32, message: String = "") {
        guard status != 0, requested, !Terminal.wroteOutput else { return }
        var all = Terminal.errors
        let extra = message.trimmingSuffix("\n")
        if !extra.isEmpty { all.append(extra) }
        JSON.out([("error", JSON.error(status, message: all.joined(separator: "\n"), dbusError: Terminal.lastDBusError()))])
    }
}

extension String {
    /// The string without trailing `character`s.
    fileprivate func trimmingSuffix(_ character: Character) -> String {
        var s = Substring(self)
        while s.last == character { s.removeLast() }
        return String(s)
    }
}
