import Glibc
import SchemeBridgeCLIKit

/// A failure under `--json`: besides the message on stderr, one object on stdout —
/// `{"error":"not_found","status":2,"message":"…"}` — so a script reading the output always gets
/// JSON. A command that printed objects of its own (`open` prints one a URL, failed or not;
/// `can-open` its answer) gets no second one.
enum JSONFailure {

    /// Whether the command line asks for JSON.
    static var requested: Bool {
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    /// The word for an exit status.
    static func reason(_ status: Int32) -> String {
        switch ExitStatus(rawValue: status) {
        case .usage: return "usage"
        case .notFound: return "not_found"
        case .noHandler: return "no_handler"
        case .cancelled: return "cancelled"
        case .success: return "success"
        case .failed, nil: return "failed"
        }
    }

    /// Prints the failure object for a non-zero `status` under `--json` (once); `message` is
    /// added to the messages reported before.
    static func finish(_ status: Int32, message: String = "") {
        guard status != 0, requested, !Terminal.wroteOutput else { return }
        Terminal.wroteOutput = true
        var all = Terminal.errors
        let extra = message.trimmingSuffix("\n")
        if !extra.isEmpty { all.append(extra) }
        Terminal.write(fd: 1, JSON.text(.object([("error", .string(reason(status))), ("status", .number(String(status))),
                                                 ("message", .string(all.joined(separator: "\n")))])) + "\n")
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
