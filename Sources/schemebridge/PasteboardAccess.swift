import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge pasteboard grant NAME APP-ID...`: lets other apps read the pasteboard.
struct PasteboardGrant: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Let apps read a pasteboard of yours (app ids such as org.example.Viewer, or patterns such as org.example.*).")

    @OptionGroup var arguments: PasteboardAppIDs

    func run() throws { try arguments.perform("grant access to", ContractCall.grant) }
}

/// `schemebridge pasteboard revoke NAME APP-ID...`: takes grants back.
struct PasteboardRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Take back read access that `grant` (or `open --pasteboard`) gave (the same app ids or patterns).")

    @OptionGroup var arguments: PasteboardAppIDs

    func run() throws { try arguments.perform("revoke access to", ContractCall.revoke) }
}

/// The arguments of `grant` and `revoke`: `NAME APP-ID...`.
struct PasteboardAppIDs: ParsableArguments {
    @OptionGroup var pasteboard: PasteboardName

    @ArgumentParser.Argument(help: ArgumentHelp("The apps: app ids (desktop ids; a .desktop suffix is dropped), or `prefix.*` patterns.", valueName: "app-id"))
    var appIDs: [String]

    @OptionGroup var client: ClientOptions

    func validate() throws {
        if appIDs.isEmpty { throw ValidationError("name at least one app id (or pattern)") }
    }

    /// Performs `call` (grant or revoke) with the app ids on the pasteboard; `verb` says what
    /// failed.
    func perform(_ verb: String, _ call: ([String], ObjectPath) -> ContractCall<Void>) throws {
        _ = try client.withService("cannot \(verb) pasteboard '\(pasteboard.shown)'") { service throws(DBusError) in
            // A desktop id as `handlers` prints it (with `.desktop`) is taken by the service
            // (AppIDPattern drops the suffix, for D-Bus callers too).
            try service.perform(call(appIDs, pasteboard.path(service)))
        }
    }
}

/// `schemebridge pasteboard delete NAME`: the owner or a grantee deletes the pasteboard.
struct PasteboardDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a pasteboard and its data (its owner, or an app it was granted to, as a reader does when done).")

    @OptionGroup var pasteboard: PasteboardName
    @OptionGroup var client: ClientOptions

    func run() throws {
        _ = try client.withService("cannot delete pasteboard '\(pasteboard.shown)'") { service throws(DBusError) in
            try service.perform(.deletePasteboard(at: pasteboard.path(service)))
        }
    }
}
