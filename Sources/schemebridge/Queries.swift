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
        if output.json {
            var members: [(String, JSON.Value)] = [("url", .string(url)), ("can_open", .bool(can))]
            if !can { members.append(("error", JSON.error(.noHandler, since: Terminal.errors.count, fallback: "no application handles '\(Open.shown(url))'"))) }
            JSON.out(members)
        } else {
            Terminal.out(can ? "yes" : "no")
        }
        if !can { throw ExitStatus.noHandler.exitCode }
    }
}

/// `schemebridge handlers SCHEME` / `--type TYPE`: the eligible handlers, the default first.
struct Handlers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the applications that handle a scheme (or, with --type, a content type), the default first (exit 3 when none).")

    @ArgumentParser.Argument(help: ArgumentHelp("A URL scheme, e.g. todolist.", valueName: "scheme"), completion: DynamicCompletion.schemes)
    var scheme: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("A content type instead, e.g. application/pdf.", valueName: "type"))
    var contentType: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if (scheme == nil) == (contentType == nil) { throw ValidationError("give a scheme or --type TYPE") }
    }

    func run() throws {
        let (key, name) = contentType.map { ("type", $0) } ?? ("scheme", scheme ?? "")
        let (ids, routes, skipped) = try client.withService("cannot list handlers of '\(Open.shown(name))'") { service throws(DBusError) in
            let ids: [String]
            if let contentType { ids = try service.perform(.handlersForType(contentType)) } else { ids = try service.perform(.handlersForScheme(name)) }
            // The entries declaring the scheme that are skipped (a service before contract 3 has none to say).
            let skipped = contentType == nil ? (try? service.perform(.skippedHandlersForScheme(name))) ?? [] : []
            return (ids, Self.routes(for: name, service: service), skipped)
        }
        let scheme = name
        let mark = Terminal.errors.count
        if ids.isEmpty { Terminal.error("no application handles '\(Open.shown(scheme))'") }
        if output.json {
            var members: [(String, JSON.Value)] = [(key, .string(scheme)), ("handlers", .array(ids.map { .string($0) }))]
            if !routes.isEmpty { members.append(("routes", Self.routesJSON(routes))) }
            if !skipped.isEmpty { members.append(("skipped", Self.skippedJSON(skipped))) }
            if ids.isEmpty { members.append(("error", JSON.error(.noHandler, since: mark))) }
            JSON.out(members)
        } else {
            for id in ids { Terminal.out(id) }
            for line in Self.routeLines(routes) { Terminal.out(line) }
            // On standard error: standard output stays the list of handlers scripts read.
            for s in skipped { Terminal.error("skipped \(s.desktopID) (\(s.path)): \(s.reason)") }
        }
        if ids.isEmpty { throw ExitStatus.noHandler.exitCode }
    }
}

/// `schemebridge default SCHEME [DESKTOP-ID]` / `--type TYPE [DESKTOP-ID]`: show or set the default handler.
struct Default: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the default handler of a scheme (or, with --type, a content type), or set it (written to ~/.config/mimeapps.list, as gio and xdg-mime do).")

    @ArgumentParser.Argument(help: ArgumentHelp("A URL scheme, e.g. todolist (without --type); with --type, the desktop id to set.", valueName: "scheme"),
                             completion: DynamicCompletion.schemes)
    var first: String?

    @ArgumentParser.Argument(help: ArgumentHelp("The desktop entry to make the default, e.g. org.example.Todo.desktop.", valueName: "desktop-id"),
                             completion: DynamicCompletion.desktopIDs)
    var second: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("A content type instead of a scheme, e.g. application/pdf.", valueName: "type"))
    var contentType: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if contentType == nil && first == nil { throw ValidationError("give a scheme or --type TYPE") }
        if contentType != nil && second != nil { throw ValidationError("with --type, give at most one desktop id") }
    }

    func run() throws {
        let key = contentType == nil ? "scheme" : "type"
        let scheme = contentType ?? first ?? ""
        let desktopID = contentType == nil ? second : first
        if let desktopID {
            _ = try client.withService("cannot make '\(Open.shown(desktopID))' the default for '\(Open.shown(scheme))'") { service throws(DBusError) in
                if contentType != nil { try service.perform(.setDefaultHandlerForType(scheme, desktopID)) } else { try service.perform(.setDefaultHandler(scheme, desktopID)) }
            }
            if output.json { JSON.out([(key, .string(scheme)), ("default", .string(desktopID))]) }
            return
        }
        let (id, overrides) = try client.withService("cannot read the default of '\(Open.shown(scheme))'") { service throws(DBusError) in
            (contentType != nil ? try service.perform(.defaultHandlerForType(scheme)) : try service.perform(.defaultHandler(scheme)),
             try DefaultOverrides(subject: scheme, service: service))
        }
        let mark = Terminal.errors.count
        if id.isEmpty { Terminal.error("no application handles '\(Open.shown(scheme))'") }
        if output.json {
            var members: [(String, JSON.Value)] = [(key, .string(scheme)), ("default", id.isEmpty ? .null : .string(id)), ("overridden_by", overrides.json)]
            if id.isEmpty { members.append(("error", JSON.error(.noHandler, since: mark))) }
            JSON.out(members)
        } else {
            if !id.isEmpty { Terminal.out(id) }
            for note in overrides.notes { Terminal.error(note) }
        }
        if id.isEmpty { throw ExitStatus.noHandler.exitCode }
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
            JSON.out([("schemes", .array(schemes.map { .string($0) }))])
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
            var members: [(String, JSON.Value)] = [("url", .string(url)), ("launch_image", path.isEmpty ? .null : .string(path))]
            if path.isEmpty { members.append(("error", JSON.error(.noHandler, since: Terminal.errors.count, fallback: "no launch image for '\(Open.shown(url))'"))) }
            JSON.out(members)
        } else if !path.isEmpty {
            Terminal.out(path)
        }
        if path.isEmpty { throw ExitStatus.noHandler.exitCode }
    }
}
