import LinuxSystem
import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge pasteboard …`: private, named pasteboards that apps hand typed data through
/// (`io.github.schemebridge.Pasteboards1` and `Pasteboard1`). The caller that counts — owner,
/// grantee — is the app that ran `schemebridge`, so the runs of one script are one owner.
struct PasteboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pasteboard",
        abstract: "Create, write, read, share and delete private named pasteboards.",
        discussion: """
            A pasteboard belongs to the app that created it (the app that runs `schemebridge`); it \
            can read and write it, grant other apps read access (`grant`, or `schemebridge open \
            --pasteboard NAME URL`, which grants the URL's handler), and delete it. Everybody else \
            gets "no such pasteboard". Data goes by file descriptor: `write` copies each file into a \
            sealed memfd, `read` copies the service's descriptor to standard output inside the kernel.

            Exit status: 0 success, 1 usage error or invalid argument, 2 no such pasteboard (or not \
            yours to see), no such item or type, or a FILE that does not exist, 3 no SchemeBridge \
            service, 4 the action failed (quota exceeded, access denied, a FILE that cannot be read).
            """,
        subcommands: [PasteboardCreate.self, PasteboardWrite.self, PasteboardRead.self, PasteboardTypes.self,
                      PasteboardGrant.self, PasteboardRevoke.self, PasteboardDelete.self])
}

/// The `NAME` argument of the pasteboard subcommands: a pasteboard's name, or its object path.
struct PasteboardName: ParsableArguments {
    @ArgumentParser.Argument(help: ArgumentHelp("The pasteboard's name (as `create` printed it), or its object path.", valueName: "name"))
    var name: String

    /// The object path of the pasteboard: the argument itself when it is one of the service's
    /// pasteboard paths, else `FindPasteboard(name)`.
    func path(_ service: SchemeBridgeBlockingClient) throws(DBusError) -> ObjectPath {
        if name.hasPrefix(Contract.pasteboardPathPrefix + "/"), let path = try? ObjectPath(name) { return path }
        return try service.perform(.findPasteboard(name))
    }

    /// The name fit for a one-line message.
    var shown: String { URLText.shortened(name) }
}
