import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge reply [--cancel | --error MESSAGE] [KEY=VALUE...]`: a handler started by
/// `OpenURLWithReply` (or `schemebridge open --wait`) answers the app that asked. The token comes
/// from `$SCHEMEBRIDGE_REPLY_TOKEN`, which SchemeBridge sets for that handler only.
struct Reply: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer the app that opened this handler with a reply request (from a handler script).",
        discussion: """
            Results are KEY=VALUE pairs (strings). Without options the answer is success; --cancel \
            says the user cancelled; --error MESSAGE says it failed. The result activation-token \
            is $XDG_ACTIVATION_TOKEN (else $DESKTOP_STARTUP_ID) unless given: set it to a token \
            from your compositor so the caller's window may take focus. Exit 0 when the answer was \
            delivered, 1 when this process was not started for a reply, 4 when the request is gone \
            (answered, closed, timed out) or this process is not its handler.
            """)

    @Flag(name: .long, help: "Answer that the request was cancelled (code 1).")
    var cancel = false

    @Option(name: .long, help: ArgumentHelp("Answer that the request failed (code 2), with this message.", valueName: "message"))
    var error: String?

    @ArgumentParser.Argument(help: ArgumentHelp("Results to send, as KEY=VALUE.", valueName: "key=value"))
    var results: [String] = []

    @OptionGroup var client: ClientOptions

    func validate() throws {
        if cancel && error != nil { throw ValidationError("give --cancel or --error, not both") }
        for r in results where !r.contains("=") || r.hasPrefix("=") {
            throw ValidationError("'\(r)' is not KEY=VALUE")
        }
    }

    func run() throws {
        guard let token = Terminal.environment("SCHEMEBRIDGE_REPLY_TOKEN"), !token.isEmpty else {
            Terminal.error("no reply is expected of this process ($SCHEMEBRIDGE_REPLY_TOKEN is not set): "
                + "only a handler that SchemeBridge started for OpenURLWithReply can reply")
            throw ExitStatus.usage.exitCode
        }
        var values: [String: DBusValue] = [:]
        for r in results {
            let eq = r.firstIndex(of: "=")!
            values[String(r[..<eq])] = .string(String(r[r.index(after: eq)...]))
        }
        let code: ReplyCode = cancel ? .cancelled : (error != nil ? .failed : .success)
        if let error { values[Response.Key.errorMessage] = .string(error) }
        // The caller's window may take focus with the token this process has (unless one is given).
        if values[Response.Key.activationToken] == nil, let token = URLOpening.environmentActivationToken {
            values[Response.Key.activationToken] = .string(token)
        }
        _ = try client.withService("cannot reply") { service throws(DBusError) in
            try service.perform(.reply(token: token, code: code, results: values))
        }
    }
}
