import LinuxSystem
import ArgumentParser
import DBus
import Glibc
import SchemeBridgeContract

/// `schemebridge share FILE... | --text TEXT | --url URL | --type TYPE [--to TARGET] [--wait]
/// [--json]` and `schemebridge share --list [TYPE...]`: `Share1` for scripts and file managers.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share files, text, a URL or data with an app (a share sheet asks which).",
        discussion: """
            Files are handed over as read-only copies in the target's Inbox; text, URLs and data \
            (--type, read from standard input) through a pasteboard only the target can read. \
            Without --to the share sheet asks. --list prints the targets for TYPEs (id, name, \
            icon, kind, tab-separated; with --json one object with a `targets` array). Exit status: 0 shared, 1 usage, 2 a file does not exist, \
            3 nothing accepts the items (NoTarget), 4 failed, 5 cancelled (with --wait).
            """)

    @ArgumentParser.Argument(help: ArgumentHelp("Files to share (with --list: content types).", valueName: "file"))
    var files: [String] = []

    @Option(name: .long, help: ArgumentHelp("Share this text (text/plain).", valueName: "text"))
    var text: String?

    @Option(name: .long, help: ArgumentHelp("Share this URL.", valueName: "url"))
    var url: String?

    @Option(name: .long, help: ArgumentHelp("Share standard input as data of this content type.", valueName: "type"))
    var type: String?

    @Option(name: .customLong("to"), help: ArgumentHelp("The target's id (see --list), skipping the sheet.", valueName: "target"))
    var target: String?

    @Flag(name: .long, help: "Wait for the target's answer and print it (for a device: how the transfer ended, as the engine reports it).")
    var wait = false

    @Flag(name: .long, help: "List the targets that accept items of the TYPEs given as arguments.")
    var list = false

    @Flag(name: .long, help: "Show the sheet even when a choice is remembered.")
    var ask = false

    @Option(name: .long, help: ArgumentHelp("The window the sheet belongs to, x11:XID (hexadecimal) or wayland:HANDLE (exported with xdg-foreign).",
                                            valueName: "window"))
    var parentWindow: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        let sources = (files.isEmpty ? 0 : 1) + [text, url, type].compactMap { $0 }.count
        if list {
            guard sources == (files.isEmpty ? 0 : 1), target == nil, !wait else { throw ValidationError("--list takes only content types") }
        } else if sources != 1 {
            throw ValidationError("share FILEs, or one of --text, --url, --type (data on standard input)")
        }
    }

    func run() throws {
        if list { return try listTargets() }
        let items = try self.items()
        // Waiting, a device share's answer is the transfer's end as the engine reports it.
        var options = ShareOptions(target: target, ask: ask, activationToken: Self.activationToken(), delivery: wait)
        options.parentWindow = parentWindow
        var service = try client.client()
        service.timeout = .seconds(300)
        let path: ObjectPath, response: Response
        do throws(DBusError) {
            path = try service.perform(.share(items, options: options))
            guard wait else {
                if output.json { JSON.out([("request", .string(path.rawValue))]) } else { Terminal.out(path.rawValue) }
                return
            }
            response = try WaitForReply.waitForResponse(at: path, connection: service.connection)
        } catch {
            throw ServiceClient.report(error, "cannot share")
        }
        withExtendedLifetime(items) {}
        let status = WaitForReply.report(response, leading: [], json: output.json)
        if status != .success { throw status.exitCode }
    }

    /// The items the command line names: each file opened read-only (its descriptor), the text,
    /// the URL, or standard input as a sealed memfd.
    private func items() throws -> [[String: DBusValue]] {
        func item(_ entries: [String: DBusValue]) -> [String: DBusValue] { entries }
        if let text { return [item([ShareContract.ItemKey.type: .string("text/plain"), ShareContract.ItemKey.data: .bytes(Array(text.utf8))])] }
        if let url { return [item([ShareContract.ItemKey.url: .string(url)])] }
        if let type {
            let data: UnixFD
            do { data = try SealedMemfd.copy(of: 0, name: "schemebridge-share") } catch {
                Terminal.error("cannot share: cannot read standard input: \(error)")
                throw ExitStatus.failed.exitCode
            }
            return [item([ShareContract.ItemKey.type: .string(type), ShareContract.ItemKey.data: .unixFD(data)])]
        }
        return try files.map { file in
            switch OpenDocument.descriptor(OpenDocument.path(file) ?? FileArgument.bytes(of: file), shown: URLText.shortened(file)) {
            case .success(let fd): return item([ShareContract.ItemKey.file: .unixFD(fd)])
            case .failure(let reported): throw reported.status.exitCode
            }
        }
    }

    private func listTargets() throws {
        let rows = try client.withService("cannot list share targets") { service throws(DBusError) in try service.perform(.shareTargets(types: files)) }
        if output.json {
            JSON.out([("targets", .array(rows.map { r in .object(zip(["id", "name", "icon", "kind"], r).map { ($0, .string($1)) }) }))])
        } else {
            for r in rows { Terminal.out(r.joined(separator: "\t")) }
        }
    }

    /// The token the environment carries (`XDG_ACTIVATION_TOKEN`, else `DESKTOP_STARTUP_ID`).
    static func activationToken() -> String? {
        for name in ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"] {
            if let v = getenv(name).map({ String(cString: $0) }), !v.isEmpty { return v }
        }
        return nil
    }
}
