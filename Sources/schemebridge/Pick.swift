import ArgumentParser
import DBus
import Glibc
import SchemeBridgeCLIKit
import SchemeBridgeContract

/// `schemebridge pick [--type T]... [--multiple] [--output DIR | --print] [--json]`: picks a
/// document that lives in another app (`PickDocument`), and writes what was picked into DIR
/// (names made safe, an existing file never overwritten: ` (2)` before the extension), or into a
/// new private folder whose paths are printed (`--print`, the default).
struct Pick: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pick a document that lives in another app (a provider), or a file.",
        discussion: """
            The sheet lists the apps that provide the types, and "Files...". Exit statuses as \
            'open --wait': 0 picked, 5 cancelled, 4 failed, 2 no such provider, 1 usage.
            """)

    @Option(name: .customLong("type"), help: ArgumentHelp("A content type to take (type/subtype, type/*); repeat for more. Default: any.", valueName: "type"))
    var types: [String] = []

    @Flag(name: .long, help: "Take more than one document.")
    var multiple = false

    @Option(name: .long, help: ArgumentHelp("Ask this provider (a desktop id) without showing the sheet.", valueName: "desktop-id"))
    var provider: String?

    @Option(name: .long, help: ArgumentHelp("What the sheet says.", valueName: "text"))
    var title: String?

    @Option(name: .long, help: ArgumentHelp("The window the sheet belongs to, x11:XID (hexadecimal) or wayland:HANDLE (exported with xdg-foreign).",
                                            valueName: "window"))
    var parentWindow: String?

    @Option(name: .long, help: ArgumentHelp("Write the documents into this folder.", valueName: "dir"))
    var output: String?

    @Flag(name: .customLong("print"), help: "Write copies into a new private folder and print their paths (the default).")
    var printPaths = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if output != nil && printPaths { throw ValidationError("give --output DIR or --print, not both") }
    }

    func run() throws {
        var options = PickOptions(provider: provider, multiple: multiple, title: title,
                                  activationToken: Terminal.environment("XDG_ACTIVATION_TOKEN").flatMap { $0.isEmpty ? nil : $0 })
        options.parentWindow = parentWindow
        let response = try client.withService("cannot pick") { service throws(DBusError) -> Response in
            let path = try service.perform(.pickDocument(types: types, options: options))
            return try WaitForReply.waitForResponse(at: path, connection: service.connection)
        }
        let r = response.results
        guard response.code == ReplyCode.success.rawValue else {
            let cancelled = response.code == ReplyCode.cancelled.rawValue
            let message = r[Response.Key.errorMessage]?.string ?? (cancelled ? "nothing was picked" : "the pick failed")
            Terminal.error("pick: \(message)", dbusError: r[Response.Key.errorName]?.string)
            if out.json {
                JSON.out([("code", .number(.init(response.code))), ("status", .string(cancelled ? "cancelled" : "failed")),
                          ("error", WaitForReply.failure(response, fallback: message))])
            }
            throw (cancelled ? ExitStatus.cancelled : ExitStatus.failed).exitCode
        }
        let fds = (r[PickContract.ResultKey.fds]?.arrayElements ?? []).compactMap { v -> UnixFD? in
            if case .unixFD(let fd) = v { return fd } else { return nil }
        }
        let names = (r[PickContract.ResultKey.names]?.arrayElements ?? []).compactMap(\.string)
        let pickedTypes = (r[PickContract.ResultKey.types]?.arrayElements ?? []).compactMap(\.string)
        let folder = try output ?? PickedFiles.privateFolder()
        var written: [(String, String, Int64)] = []
        for (i, fd) in fds.enumerated() {
            let name = PickedFiles.safeName(i < names.count ? names[i] : "", index: i)
            do {
                let (path, size) = try PickedFiles.write(fd.rawValue, into: folder, name: name)
                written.append((path, i < pickedTypes.count ? pickedTypes[i] : "", size))
            } catch {
                Terminal.error("pick: cannot write \(name) into \(folder): \(error.message)")
                throw ExitStatus.failed.exitCode
            }
        }
        let provider = r[PickContract.ResultKey.provider]?.string ?? ""
        if out.json {
            let docs = written.map { JSON.Value.object([("path", .string($0.0)), ("type", .string($0.1)), ("size", .number(.init($0.2)))]) }
            JSON.out([("code", .number(0)), ("status", .string("success")), ("provider", .string(provider)), ("documents", .array(docs))])
        } else {
            for (path, _, _) in written { Terminal.out(path) }
        }
    }
}
