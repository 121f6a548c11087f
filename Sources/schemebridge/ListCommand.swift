import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge list`: every scheme with a handler, its default and the other handlers (like
/// `handlr list`), from the `Schemes` property and `HandlersForScheme` (the default first).
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every scheme with its default application and the others that handle it.",
        discussion: """
            One line a scheme: SCHEME, DEFAULT and the other handlers, tab-separated (with --json one object \
            with a `schemes` array). `schemebridge which URL` says why a handler is chosen.
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let rows = try client.withService("cannot list the schemes") { service throws(DBusError) -> [(String, [String])] in
            let schemes = (try service.property(ContractProperty.schemes).arrayElements ?? []).compactMap(\.string).sorted()
            var rows: [(String, [String])] = []
            for scheme in schemes {
                // A scheme whose last handler went away meanwhile is left out.
                let handlers = try service.perform(.handlersForScheme(scheme))
                if !handlers.isEmpty { rows.append((scheme, handlers)) }
            }
            return rows
        }
        if output.json {
            Terminal.out(JSON.text(.object([("schemes", .array(rows.map { scheme, handlers in
                .object([("scheme", .string(scheme)), ("default", .string(handlers[0])),
                         ("others", .array(handlers.dropFirst().map { .string($0) }))])
            }))])))
            return
        }
        for (scheme, handlers) in rows {
            Terminal.out(([scheme, handlers[0]] + (handlers.count > 1 ? [handlers.dropFirst().joined(separator: ", ")] : [])).joined(separator: "\t"))
        }
    }
}
