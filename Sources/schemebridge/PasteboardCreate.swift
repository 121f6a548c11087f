import LinuxSystem
import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge pasteboard create [--persistent] [--expires SECONDS] [NAME]`: prints the name.
struct PasteboardCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a pasteboard owned by the calling app and print its name.",
        discussion: """
            Without NAME the service makes a unique, unguessable name (the way to hand data to one \
            other app). Creating a name the same app already owns gives that pasteboard back.
            """)

    @ArgumentParser.Argument(help: ArgumentHelp("The name to give it (default: a unique name).", valueName: "name"))
    var name: String = ""

    @Flag(name: .long, help: "Keep it on disk: it survives the service's restart (until it expires).")
    var persistent = false

    @Option(name: .long, help: ArgumentHelp("Delete it after this many seconds (default: the service's).", valueName: "seconds"))
    var expires: UInt64?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if expires == 0 { throw ValidationError("--expires takes a positive number of seconds") }
    }

    func run() throws {
        let options = PasteboardOptions(persistent: persistent, expiresIn: expires)
        let subject = name.isEmpty ? "cannot create a pasteboard" : "cannot create pasteboard '\(URLText.shortened(name))'"
        let (path, created) = try client.withService(subject) { service throws(DBusError) in
            try service.perform(.createPasteboard(name, options: options))
        }
        if output.json { JSON.out([("name", .string(created)), ("path", .string(path.rawValue))]) } else { Terminal.out(created) }
    }
}
