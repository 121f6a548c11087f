import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge can-open URL`: whether a handler would open the URL (exit 0 yes, 3 no).
struct CanOpen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "can-open",
        abstract: "Tell whether some application would open a URL (exit 0: yes, 3: no).")

    @ArgumentParser.Argument(help: ArgumentHelp("The URL to check.", valueName: "url"))
    var url: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let can = try client.withService("cannot check '\(Open.shown(url))'") { service throws(DBusError) in
            try service.perform(.canOpenURL(url))
        }
        Terminal.out(output.json ? JSON.text(.object([("url", .string(url)), ("can_open", .bool(can))])) : (can ? "yes" : "no"))
        if !can { throw ExitStatus.noHandler.exitCode }
    }
}

/// `schemebridge handlers SCHEME`: the eligible handlers, the default first.
struct Handlers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the applications that handle a scheme, the default first (exit 3 when none).")

    @ArgumentParser.Argument(help: ArgumentHelp("A URL scheme, e.g. todolist.", valueName: "scheme"))
    var scheme: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (ids, routes) = try client.withService("cannot list handlers of '\(Open.shown(scheme))'") { service throws(DBusError) in
            (try service.perform(.handlersForScheme(scheme)), Self.routes(for: scheme, service: service))
        }
        if output.json {
            Terminal.out(JSON.text(.object([("scheme", .string(scheme)), ("handlers", .array(ids.map { .string($0) })),
                                            ("routes", .array(routes.map { .object([("from", .string($0.caller)), ("handler", .string($0.desktopID))]) }))])))
        } else {
            for id in ids { Terminal.out(id) }
            for line in Self.routeLines(routes) { Terminal.out(line) }
        }
        if ids.isEmpty {
            if !output.json { Terminal.error("no application handles '\(Open.shown(scheme))'") }
            throw ExitStatus.noHandler.exitCode
        }
    }
}

/// `schemebridge default SCHEME [DESKTOP-ID]`: show or set the default handler.
struct Default: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the default handler of a scheme, or set it (written to ~/.config/mimeapps.list, as gio and xdg-mime do).")

    @ArgumentParser.Argument(help: ArgumentHelp("A URL scheme, e.g. todolist.", valueName: "scheme"))
    var scheme: String

    @ArgumentParser.Argument(help: ArgumentHelp("The desktop entry to make the default, e.g. org.example.Todo.desktop.", valueName: "desktop-id"))
    var desktopID: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        if let desktopID {
            _ = try client.withService("cannot make '\(Open.shown(desktopID))' the default for '\(Open.shown(scheme))'") { service throws(DBusError) in
                try service.perform(.setDefaultHandler(scheme, desktopID))
            }
            if output.json {
                Terminal.out(JSON.text(.object([("scheme", .string(scheme)), ("default", .string(desktopID))])))
            }
            return
        }
        let id = try client.withService("cannot read the default of '\(Open.shown(scheme))'") { service throws(DBusError) in
            try service.perform(.defaultHandler(scheme))
        }
        if output.json {
            Terminal.out(JSON.text(.object([("scheme", .string(scheme)), ("default", id.isEmpty ? .null : .string(id))])))
        } else if !id.isEmpty {
            Terminal.out(id)
        }
        if id.isEmpty {
            if !output.json { Terminal.error("no application handles '\(Open.shown(scheme))'") }
            throw ExitStatus.noHandler.exitCode
        }
    }
}

/// `schemebridge schemes`: every scheme with a handler.
struct Schemes: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List every scheme some installed application handles.")

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let schemes = try client.withService("cannot list schemes") { service throws(DBusError) in
            (try service.property(ContractProperty.schemes).arrayElements ?? []).compactMap(\.string)
        }
        if output.json {
            Terminal.out(JSON.text(.array(schemes.map { .string($0) })))
        } else {
            for s in schemes { Terminal.out(s) }
        }
    }
}

/// `schemebridge launch-image URL`: the image that would be shown while the handler starts.
struct LaunchImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch-image",
        abstract: "Print the launch image that would be shown while opening a URL (exit 3 when none).")

    @ArgumentParser.Argument(help: ArgumentHelp("The URL.", valueName: "url"))
    var url: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let path = try client.withService("cannot look up the launch image of '\(Open.shown(url))'") { service throws(DBusError) in
            try service.perform(.launchImageForURL(url))
        }
        if output.json {
            Terminal.out(JSON.text(.object([("url", .string(url)), ("launch_image", path.isEmpty ? .null : .string(path))])))
        } else if !path.isEmpty {
            Terminal.out(path)
        }
        if path.isEmpty { throw ExitStatus.noHandler.exitCode }
    }
}
