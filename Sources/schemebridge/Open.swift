import ArgumentParser
import DBus

/// `schemebridge open URL...`: like `xdg-open`, but only for URLs with a scheme, and through
/// the service's policy. Returns once each handler has started; never waits for it to exit.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open URLs with the applications that handle their schemes (like xdg-open).",
        discussion: """
            Each URL is handed to the default handler of its scheme (or --handler) as exactly one \
            argument; no shell runs. The command returns as soon as the handler has started. With several \
            URLs every one is tried and the status is that of the first failure.
            """)

    @ArgumentParser.Argument(help: ArgumentHelp("The URLs to open, e.g. 'todolist://add?task=milk'.", valueName: "url"))
    var urls: [String]

    @Option(name: .long, help: ArgumentHelp("Use this desktop entry instead of the default (see `schemebridge handlers`).", valueName: "desktop-id"))
    var handler: String?

    @Option(name: .long, help: ArgumentHelp("An activation token to hand to the app (default: $XDG_ACTIVATION_TOKEN, else $DESKTOP_STARTUP_ID).", valueName: "token"))
    var activationToken: String?

    @Flag(name: .long, help: "Do not show the handler's launch image.")
    var noLaunchImage = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one URL to open") }
    }

    func run() async throws {
        let service = try await client.client()
        defer { service.close() }
        var options: [String: DBusValue] = [:]
        if let handler { options["handler"] = .string(handler) }
        if let token = activationToken ?? Terminal.environment("XDG_ACTIVATION_TOKEN") ?? Terminal.environment("DESKTOP_STARTUP_ID") {
            options["activation-token"] = .string(token)
        }
        if noLaunchImage { options["launch-image"] = .boolean(false) }

        var firstFailure: ExitStatus?
        for url in urls {
            let status = await open(url, options: options, service: service)
            if status != .success, firstFailure == nil { firstFailure = status }
        }
        if let firstFailure { throw firstFailure.exitCode }
    }

    private func open(_ url: String, options: [String: DBusValue], service: ServiceClient) async -> ExitStatus {
        if let local = Self.localPathStatus(url) { return local }
        do {
            if options.isEmpty && !output.json {
                _ = try await service.call("OpenURL", [.string(url)])
                return .success
            }
            let reply = try await service.call("OpenURLWithOptions", [.string(url), .vardict(options)])
            if output.json {
                var members: [(String, JSON.Value)] = [("url", .string(url)), ("opened", .bool(true))]
                if let results = reply.first?.stringDictionary {
                    for key in results.keys.sorted() { members.append((key, JSON.value(results[key]!))) }
                }
                Terminal.out(JSON.text(.object(members)))
            }
            return .success
        } catch {
            let status = ExitStatus(error)
            Terminal.error("cannot open '\(Self.shown(url))': \(ServiceClient.explain(error))")
            if output.json {
                Terminal.out(JSON.text(.object([("url", .string(url)), ("opened", .bool(false)),
                                                ("error", .string(error.name.rawValue)), ("message", .string(error.message))])))
            }
            return status
        }
    }

    /// xdg-open also takes file names. SchemeBridge routes URL schemes only: a name without a
    /// scheme that does not exist is "not found" (2), one that exists belongs to the file manager (3).
    static func localPathStatus(_ argument: String) -> ExitStatus? {
        guard argument.hasPrefix("/") || argument.hasPrefix("./") || argument.hasPrefix("../") || argument.hasPrefix("~") else { return nil }
        if Terminal.exists(argument) {
            Terminal.error("'\(shown(argument))' is a file; SchemeBridge opens URLs with a scheme — open files with xdg-open or gio open")
            return .noHandler
        }
        Terminal.error("'\(shown(argument))': no such file, and not a URL (a URL starts with a scheme, as in todolist://...)")
        return .notFound
    }

    /// `url` fit for a one-line message.
    static func shown(_ url: String) -> String {
        let clean = String(url.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return clean.count > 200 ? String(clean.prefix(200)) + "…" : clean
    }
}
