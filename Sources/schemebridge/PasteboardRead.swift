import ArgumentParser
import DBus
import LinuxSystem
import SchemeBridgeContract

/// `schemebridge pasteboard read NAME [TYPE] [--item N]`: one item's data, to standard output.
struct PasteboardRead: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Write the data of one item of a pasteboard to standard output.",
        discussion: """
            The service answers with a read-only descriptor whose content never changes; it is copied \
            to standard output inside the kernel (copy_file_range, sendfile or splice), so items of any \
            size pass without being held in memory. Redirect it: `schemebridge pasteboard read NAME > FILE`.
            """)

    @OptionGroup var pasteboard: PasteboardName

    @ArgumentParser.Argument(help: ArgumentHelp("The type to read (default: the item's first type, as `types` lists them).", valueName: "type"))
    var type: String?

    @Option(name: .long, help: ArgumentHelp("The item to read, counted from 0.", valueName: "n"))
    var item: UInt32 = 0

    @OptionGroup var client: ClientOptions

    func run() throws {
        let data = try client.withService("cannot read pasteboard '\(pasteboard.shown)'") { service throws(DBusError) in
            let path = try pasteboard.path(service)
            let type: String
            if let given = self.type { type = given } else { type = try Self.firstType(of: item, at: path, service) }
            return try service.perform(.read(item: item, type: type, at: path))
        }
        do {
            _ = try data.withFileDescriptor { (d) throws(Errno) in try FileDescriptor.lending(1) { (out) throws(Errno) in try d.copy(to: out, offset: 0) } }
        } catch {
            Terminal.error("cannot copy pasteboard '\(pasteboard.shown)' to standard output: \(error)")
            throw ExitStatus.failed.exitCode
        }
    }

    /// The first type of `item` (`NoSuchType` when there is no such item).
    static func firstType(of item: UInt32, at path: ObjectPath, _ service: SchemeBridgeBlockingClient) throws(DBusError) -> String {
        let items = try service.perform(.pasteboardTypes(at: path))
        guard Int(item) < items.count, let first = items[Int(item)].first else {
            let has = items.isEmpty ? "it is empty" : "it has item\(items.count == 1 ? " 0" : "s 0 to \(items.count - 1)")"
            throw ContractError.noSuchType("the pasteboard has no item \(item) (\(has))")
        }
        return first
    }
}

/// `schemebridge pasteboard types NAME`: each item's types.
struct PasteboardTypes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the types of each item of a pasteboard: one `ITEM<TAB>TYPE` line a type, items counted from 0.")

    @OptionGroup var pasteboard: PasteboardName
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let items = try client.withService("cannot list the types of pasteboard '\(pasteboard.shown)'") { service throws(DBusError) in
            try service.perform(.pasteboardTypes(at: pasteboard.path(service)))
        }
        if output.json {
            JSON.out([("name", .string(pasteboard.name)), ("items", .array(items.map { .array($0.map { .string($0) }) }))])
            return
        }
        for (index, types) in items.enumerated() {
            for type in types { Terminal.out("\(index)\t\(type)") }
        }
    }
}
