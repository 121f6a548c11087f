import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge type FILE...`: each file's content type, as the service detects it (the
/// shared-mime-info rules `gio info` follows), from a descriptor the command opens.
struct TypeQuery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract: "Print the content type of files (exit 2 when one does not exist).")

    @ArgumentParser.Argument(help: ArgumentHelp("The files (paths or file:// URIs).", valueName: "file"), completion: .file())
    var files: [String]

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file") }
    }

    func run() throws {
        let service = try client.client()
        var first: ExitStatus?
        for file in files {
            let path = OpenDocument.path(file) ?? FileArgument.bytes(of: file)
            let status: ExitStatus
            let mark = Terminal.errors.count
            switch FileArgument.descriptorForType(path, shown: Open.shown(file)) {
            case .failure(let reported):
                status = reported.status
            case .success(let fd):
                do {
                    let type = try service.perform(.contentTypeForFile(fd, name: FileArgument.name(path)))
                    if output.json { JSON.out([("file", .string(file)), ("content_type", .string(type))]) } else {
                        Terminal.out(files.count == 1 ? type : "\(file): \(type)")
                    }
                    status = .success
                } catch {
                    Terminal.error("cannot tell the type of '\(Open.shown(file))': \(ServiceClient.explain(error))", dbusError: error.name.rawValue)
                    status = ExitStatus(error)
                }
            }
            if status != .success, output.json {
                JSON.out([("file", .string(file)), ("content_type", .null), ("error", JSON.error(status, since: mark))])
            }
            if status != .success, first == nil { first = status }
        }
        if let first { throw first.exitCode }
    }
}
