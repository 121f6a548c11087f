import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge choices [--forget CALLER SCHEME]`: the choices remembered with "always" in a
/// chooser (per caller app and scheme or type), and forgetting one.
struct Choices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the remembered choices (\"always\" in a chooser), or forget one.",
        discussion: """
            Each line is CALLER SCHEME-OR-TYPE DESKTOP-ID: when that app opens a URL of that scheme, the \
            application is used without asking (`open --ask` included). They are kept in \
            ~/.config/schemebridge/choices, never in mimeapps.list. --forget CALLER SCHEME removes one \
            (exit 3 when there was none).
            """)

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Forget what CALLER chose for SCHEME (a scheme or a content type).",
                                                                      valueName: "caller scheme"))
    var forget: [String] = []

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if !forget.isEmpty && forget.count != 2 { throw ValidationError("--forget takes two values: the caller's app id and the scheme") }
    }

    func run() throws {
        guard forget.count == 2 else {
            let choices = try client.withService("cannot read the remembered choices") { service throws(DBusError) in try service.perform(.choices) }
            Self.print(choices, json: output.json)
            return
        }
        let (caller, subject) = (forget[0], forget[1])
        let known = try client.withService("cannot forget what \(caller) chose for '\(Open.shown(subject))'") { service throws(DBusError) -> Bool in
            let known = try service.perform(.choices).contains { $0.caller == caller && $0.subject == subject.lowercased() }
            try service.perform(.forgetChoice(caller: caller, subject))
            return known
        }
        let mark = Terminal.errors.count
        if !known { Terminal.error("nothing was remembered for \(caller) and '\(Open.shown(subject))'") }
        if output.json {
            var members: [(String, JSON.Value)] = [("caller", .string(caller)), ("subject", .string(subject)), ("forgotten", .bool(known))]
            if !known { members.append(("error", JSON.error(.noHandler, since: mark))) }
            JSON.out(members)
        }
        if !known { throw ExitStatus.noHandler.exitCode }
    }

    /// Prints `(caller, subject, desktop id)` rows: aligned text, or one JSON object with a `choices` array.
    static func print(_ rows: [RememberedChoice], json: Bool) {
        if json {
            JSON.out([("choices", .array(rows.map {
                .object([("caller", .string($0.caller)), ("subject", .string($0.subject)), ("handler", .string($0.desktopID))])
            }))])
            return
        }
        for r in rows { Terminal.out("\(r.caller)\t\(r.subject)\t\(r.desktopID)") }
    }
}

extension ClientOptions {
    /// The client for an open with `--ask`: a person picks, so the call waits a day at least
    /// (the service's own chooser timeout answers `Cancelled` long before).
    func client(asking: Bool) throws(Reported) -> SchemeBridgeBlockingClient {
        try ServiceClient.connect(address: address, timeout: asking ? max(timeout, 86_400) : timeout)
    }
}

extension Handlers {
    /// The `[Routes]` that send `scheme` (or a content type) to another handler for some callers
    /// (text: after the handlers, each "route: from PATTERN → DESKTOP-ID"; JSON: a `routes` array).
    static func routes(for scheme: String, service: SchemeBridgeBlockingClient) -> [RememberedChoice] {
        let lowered = scheme.lowercased()
        return ((try? service.perform(.routes)) ?? []).filter { $0.subject == lowered }
    }

    /// The JSON for `routes` (only shown when there are some).
    static func routesJSON(_ routes: [RememberedChoice]) -> JSON.Value {
        .array(routes.map { .object([("from", .string($0.caller)), ("handler", .string($0.desktopID))]) })
    }

    /// The text lines for `routes`.
    static func routeLines(_ routes: [RememberedChoice]) -> [String] {
        routes.map { "route: from \($0.caller) → \($0.desktopID)" }
    }
}
