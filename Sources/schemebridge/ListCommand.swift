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
            One line a scheme: SCHEME, DEFAULT and the other handlers, tab-separated, each as NAME (DESKTOP-ID) \
            (with --json one object with a `schemes` array; `handlers` gives each id with its name). `schemebridge which URL` says why a handler is chosen.
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (rows, names) = try client.withService("cannot list the schemes") { service throws(DBusError) -> ([(String, [String])], [String: String]) in
            let schemes = (try service.property(ContractProperty.schemes).arrayElements ?? []).compactMap(\.string).sorted()
            var rows: [(String, [String])] = []
            for scheme in schemes {
                // A scheme whose last handler went away meanwhile is left out.
                let handlers = try service.perform(.handlersForScheme(scheme))
                if !handlers.isEmpty { rows.append((scheme, handlers)) }
            }
            // The apps' names, like handlr list (a service before contract 3 has none to give).
            let ids = Array(Set(rows.flatMap(\.1))).sorted().prefix(1024)
            return (rows, (try? service.perform(.displayNames(Array(ids)))) ?? [:])
        }
        if output.json {
            func handler(_ id: String) -> JSON.Value { .object([("desktop_id", .string(id)), ("name", names[id].map { .string($0) } ?? .null)]) }
            JSON.out([("schemes", .array(rows.map { scheme, handlers in
                .object([("scheme", .string(scheme)), ("default", .string(handlers[0])),
                         ("others", .array(handlers.dropFirst().map { .string($0) })),
                         ("handlers", .array(handlers.map(handler)))])
            }))])
            return
        }
        func shown(_ id: String) -> String { names[id].map { "\($0) (\(id))" } ?? id }
        for (scheme, handlers) in rows {
            Terminal.out(([scheme, shown(handlers[0])] + (handlers.count > 1 ? [handlers.dropFirst().map(shown).joined(separator: ", ")] : [])).joined(separator: "\t"))
        }
    }
}
