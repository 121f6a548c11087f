import ArgumentParser
import DBus
import Glibc
import LinuxSystem
import SchemeBridgeContract

/// `schemebridge pasteboard write NAME TYPE [FILE|-] [TYPE FILE]... [+ TYPE FILE...]...`:
/// replaces the pasteboard's items in one `SetItems`.
struct PasteboardWrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Replace the items of a pasteboard of yours with files (or standard input).",
        usage: """
            schemebridge pasteboard write <name> <type> [<file>|-]
            schemebridge pasteboard write <name> <type> <file> [<type> <file>]... [+ <type> <file> [<type> <file>]...]...
            """,
        discussion: """
            The arguments after NAME are TYPE FILE pairs: each pair is one type of an item (the same \
            data in several types: text/plain notes.txt text/html notes.html), and a lone + starts the \
            next item. FILE - or a last TYPE without FILE reads standard input. All items are written \
            at once (one SetItems): a reader sees the old items or the new ones, never a mix.

            Each FILE is copied into a sealed memfd (inside the kernel) and passed by descriptor, so \
            there is no size limit but the service's quota; the session bus carries 16 descriptors a \
            message, so one write takes at most 16 pairs. Prints nothing; --json prints the name and \
            the new change count.
            """)

    @OptionGroup var pasteboard: PasteboardName

    @ArgumentParser.Argument(help: ArgumentHelp("TYPE [FILE|-] pairs, items separated by +.", valueName: "type-and-file"))
    var data: [String] = []

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        do {
            _ = try PasteboardItemList(data)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let list = try PasteboardItemList(data)
        let subject = "cannot write pasteboard '\(pasteboard.shown)'"
        // Every file opens before anything is sent: a typo costs no call.
        var inputs: [String: Int32] = [:]
        defer { for fd in inputs.values where fd != 0 { close(fd) } }
        for entry in list.items.joined() {
            guard case .file(let path) = entry.source, inputs[path] == nil else { continue }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                let status: ExitStatus = errno == ENOENT || errno == ENOTDIR ? .notFound : .failed
                Terminal.error("\(subject): '\(URLText.shortened(path))': \(Errno.current)")
                throw status.exitCode
            }
            inputs[path] = fd
        }
        let service = try client.client()
        let path: ObjectPath
        do {
            path = try pasteboard.path(service)
        } catch {
            throw ServiceClient.report(error, subject)
        }
        let items = try list.items.map { item in
            try item.map { entry in (type: entry.type, data: PasteboardData.descriptor(try Self.sealedCopy(entry.source, inputs, subject))) }
        }
        let changeCount: UInt32
        do {
            changeCount = try service.perform(.setItems(items, at: path))
        } catch {
            throw ServiceClient.report(error, subject)
        }
        if output.json {
            JSON.out([("name", .string(pasteboard.name)), ("change_count", .number(.init(changeCount)))])
        }
    }

    /// A sealed memfd with the data of `source` (a file opened before, or standard input).
    /// The same file named twice is read again from its start.
    static func sealedCopy(_ source: PasteboardItemList.Source, _ inputs: [String: Int32], _ subject: String) throws -> UnixFD {
        let fd: Int32
        let shown: String
        switch source {
        case .standardInput:
            fd = 0
            shown = "standard input"
        case .file(let path):
            fd = inputs[path]!
            shown = "'\(URLText.shortened(path))'"
            _ = lseek(fd, 0, SEEK_SET)
        }
        do {
            return try SealedMemfd.copy(of: fd)
        } catch {
            Terminal.error("\(subject): cannot read \(shown): \(error)")
            throw ExitStatus.failed.exitCode
        }
    }
}
