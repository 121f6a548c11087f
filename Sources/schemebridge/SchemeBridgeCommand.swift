import ArgumentParser
import Glibc
import SchemeBridgeContract
// Terminal, ServiceClient, ExitStatus and URLOpening are shared with the lean entry point
// (`schemebridge`, which runs this program as `schemebridge-cli` for anything but a plain
// `open URL...`); exported here so that every file of the command line sees them.
@_exported import SchemeBridgeCLIKit

/// `schemebridge`: the command-line client of the SchemeBridge session service.
///
/// `schemebridge open URL` behaves like `xdg-open URL` (same exit codes); the other
/// subcommands query the service. Every subcommand talks to `schemebridged` over the
/// session bus, which starts it by bus activation when needed.
@main
struct SchemeBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schemebridge",
        abstract: "Open custom URL schemes with the app that declares them (via the SchemeBridge session service).",
        discussion: """
            Apps declare the schemes they handle with MimeType=x-scheme-handler/SCHEME; in their desktop \
            entries. `schemebridge open URL` asks the session service to start the handler and returns as soon \
            as it has started, like xdg-open.

            Exit status (as xdg-open): 0 success, 1 usage error or malformed URL, 2 a file, the handler \
            or the pasteboard asked for was not found, 3 no handler for the scheme or no SchemeBridge service on the session bus \
            (or no chooser for open --ask), 4 the action failed (launch failed, access denied, rate limited, quota exceeded), \
            5 cancelled (open --wait, open --ask).
            """,
        version: Release.versionText(program: "schemebridge"),
        subcommands: [Open.self, Reply.self, Pick.self, CanOpen.self, Handlers.self, Default.self, Which.self, ListCommand.self, TypeQuery.self, Schemes.self, LaunchImage.self, Monitor.self,
                      PasteboardCommand.self, Choices.self, Integrate.self, ConfigCommand.self, ShareCommand.self, DevicesCommand.self, LinksCommand.self]
    )

    /// Runs the command line, with xdg-open's exit statuses: a usage error is 1 (not
    /// ArgumentParser's 64), and failures already reported exit with their own status.
    /// Synchronous throughout (blocking D-Bus calls): no thread pool to start for a CLI that
    /// makes one call. A plain `open URL...` never gets here: the lean entry point (C,
    /// Sources/schemebridge-lean) serves it, though this program gives the same answer when run directly.
    static func main() {
        if CommandLine.arguments.count < 2 {
            // Like xdg-open: no arguments is a usage error (exit 1), with the usage on stderr.
            Terminal.write(fd: 2, "usage: schemebridge open URL... | schemebridge <subcommand> [options]\n"
                + "Run 'schemebridge --help' for the subcommands.\n")
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        if let unknown = SubcommandSuggestion.message(for: CommandLine.arguments, known: configuration.subcommands.map { $0._commandName }) {
            Terminal.error(unknown)
            JSONFailure.finish(ExitStatus.usage.rawValue)
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let reported as Reported {
            JSONFailure.finish(reported.status.rawValue)
            Glibc.exit(reported.status.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                Terminal.write(fd: 2, message + (message.hasSuffix("\n") ? "" : "\n"))
                JSONFailure.finish(ExitStatus.usage.rawValue, message: message)
                Glibc.exit(ExitStatus.usage.rawValue)
            }
            JSONFailure.finish(code.rawValue, message: fullMessage(for: error))
            exit(withError: error)
        }
    }
}
