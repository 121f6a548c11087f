import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge which URL|FILE [--caller APP-ID] [--handler ID]`: which application would open
/// it and why, level by level in the service's order — the `handler` option, the caller's
/// remembered choice, a `[Routes]` line for the caller, the default — from the service's own
/// answers (`HandlersForScheme`/`…ForType`, `DefaultHandler…`, `Choices`, `Routes`), the default
/// with the `mimeapps.list` and level it comes from (`DefaultHandlerOrigin`, ``WhichDefault``).
struct Which: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tell which application would open a URL or a file, and why (exit 3 when none).",
        discussion: """
            The order is the service's: --handler (the handler option), then the choice the calling app \
            remembered with "always", then the first [Routes] line of the config matching the calling app, \
            then the default: the first [Default Applications] line naming an eligible handler, in \
            $XDG_CONFIG_HOME, each $XDG_CONFIG_DIRS, $XDG_DATA_HOME/applications, each $XDG_DATA_DIRS/applications \
            (in each, <desktop>-mimeapps.list for each XDG_CURRENT_DESKTOP component before mimeapps.list; \
            defaults.list is not read), else the first eligible entry in directory order. The service \
            identifies the calling app itself; name it with --caller APP-ID to see what that app gets. \
            Without --caller the answer is that of an app with no remembered choice and no route, and the \
            apps that get another handler are listed.
            """)

    @ArgumentParser.Argument(help: ArgumentHelp("A URL, or a file (a path or a file:// URI).", valueName: "url-or-file"), completion: .file())
    var target: String

    @Option(name: .long, help: ArgumentHelp("The app id of the app that opens (as `schemebridge choices` names it).", valueName: "app-id"))
    var caller: String?

    @Option(name: .long, help: ArgumentHelp("The handler option: a desktop id asked for explicitly.", valueName: "desktop-id"))
    var handler: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    /// Why a handler is the one: each level of the service's order.
    enum Reason: String {
        case handlerOption = "handler-option", rememberedChoice = "remembered-choice", route, `default`
    }

    /// What the service answered for the subject (a scheme or a content type).
    struct Answers {
        var subject: String
        var isType: Bool
        var handlers: [String]
        var defaultHandler: String
        var choices: [RememberedChoice]
        var routes: [RememberedChoice]
        /// Where the default comes from (nil: a service without `DefaultHandlerOrigin`).
        var origin: DefaultHandlerOrigin?
    }

    func run() throws {
        let answers = try Self.answers(for: target, client: client)
        let subjectText = answers.isType ? "type \(answers.subject)" : "scheme '\(answers.subject)'"
        var members: [(String, JSON.Value)] = [(OpenDocument.path(target) == nil ? "url" : "file", .string(target)),
                                              (answers.isType ? "type" : "scheme", .string(answers.subject)),
                                              ("caller", caller.map { .string($0) } ?? .null)]
        guard !answers.handlers.isEmpty else {
            let mark = Terminal.errors.count
            Terminal.error("no application handles the \(subjectText)")
            if output.json { JSON.out(members + [("handler", .null), ("handlers", .array([])), ("error", JSON.error(.noHandler, since: mark))]) }
            throw ExitStatus.noHandler.exitCode
        }
        if let handler, !answers.handlers.contains(handler) {
            Terminal.error("'\(Open.shown(handler))' is not a handler of the \(subjectText) (see `schemebridge handlers`)")
            throw ExitStatus.notFound.exitCode
        }
        let (chosen, reason, why) = decide(answers, subjectText: subjectText)
        let others = answers.handlers.filter { $0 != chosen }
        // The apps that get another handler than this caller (remembered choices, routes).
        let overrides = (answers.choices.map { ($0, Reason.rememberedChoice) } + answers.routes.map { ($0, Reason.route) })
            .filter { $0.0.caller != caller && answers.handlers.contains($0.0.desktopID) }
        if output.json {
            // Where the default comes from, its own object: its `file` is a mimeapps.list, not the file asked about.
            let origin: JSON.Value = answers.origin.map { o in
                .object([("level", .string(o.level)), ("file", o.file.isEmpty ? .null : .string(o.file)),
                         ("desktop", o.desktop.isEmpty ? .null : .string(o.desktop))])
            } ?? .null
            members += [("handler", .string(chosen)), ("reason", .string(reason.rawValue)), ("explanation", .string(why)),
                        ("default", .string(answers.defaultHandler)), ("default_origin", origin), ("handlers", .array(answers.handlers.map { .string($0) })),
                        ("overrides", .array(overrides.map { .object([("caller", .string($0.0.caller)), ("handler", .string($0.0.desktopID)),
                                                                      ("reason", .string($0.1.rawValue))]) }))]
            JSON.out(members)
            return
        }
        Terminal.out(chosen)
        Terminal.out("  why: \(why)")
        if !others.isEmpty { Terminal.out("  other handlers: \(others.joined(separator: ", "))") }
        for (row, kind) in overrides {
            Terminal.out(kind == .route ? "  apps matching \(row.caller) get \(row.desktopID) (a [Routes] line in the config)"
                                        : "  \(row.caller) gets \(row.desktopID) (its remembered choice)")
        }
    }

    /// The handler for this caller, its level and the sentence that says why.
    func decide(_ a: Answers, subjectText: String) -> (String, Reason, String) {
        if let handler {
            return (handler, .handlerOption, "asked for with the handler option (--handler), which comes before everything else")
        }
        if let caller {
            if let choice = a.choices.first(where: { $0.caller == caller }), a.handlers.contains(choice.desktopID) {
                return (choice.desktopID, .rememberedChoice,
                        "\(caller) chose it with \"always\" for the \(subjectText) (`schemebridge choices --forget \(caller) \(a.subject)` forgets it)")
            }
            if let route = a.routes.first(where: { Self.matches($0.caller, caller) && a.handlers.contains($0.desktopID) }) {
                return (route.desktopID, .route,
                        "the [Routes] line '\(a.subject) from \(route.caller)' of the config sends \(caller)'s \(subjectText) there")
            }
        }
        return (a.defaultHandler, .default, WhichDefault.explanation(a.origin, subjectText: subjectText, subject: a.subject)
                + (caller == nil ? "" : "; \(caller!) has no remembered choice or route for it"))
    }

    /// Asks the service about `target`: a URL's scheme, or a file's content type.
    static func answers(for target: String, client: ClientOptions) throws -> Answers {
        let service = try client.client()
        if let path = OpenDocument.path(target) {
            let fd: UnixFD
            switch OpenDocument.descriptor(path, shown: Open.shown(target)) {
            case .failure(let reported): throw reported
            case .success(let opened): fd = opened
            }
            do {
                let type = try service.perform(.contentTypeForFile(fd, name: FileArgument.name(path)))
                return try answers(subject: type, isType: true, service: service)
            } catch {
                throw ServiceClient.report(error, "cannot tell what would open '\(Open.shown(target))'")
            }
        }
        do {
            _ = try service.perform(.canOpenURL(target))  // InvalidURL for a malformed one (exit 1)
            let scheme = String(target[..<(target.firstIndex(of: ":") ?? target.endIndex)]).lowercased()
            return try answers(subject: scheme, isType: false, service: service)
        } catch {
            throw ServiceClient.report(error, "cannot tell what would open '\(Open.shown(target))'")
        }
    }

    private static func answers(subject: String, isType: Bool, service: SchemeBridgeBlockingClient) throws(DBusError) -> Answers {
        let handlers = isType ? try service.perform(.handlersForType(subject)) : try service.perform(.handlersForScheme(subject))
        let defaultHandler = isType ? try service.perform(.defaultHandlerForType(subject)) : try service.perform(.defaultHandler(subject))
        let lowered = subject.lowercased()
        return Answers(subject: subject, isType: isType, handlers: handlers, defaultHandler: defaultHandler,
                       choices: try service.perform(.choices).filter { $0.subject == lowered },
                       routes: try service.perform(.routes).filter { $0.subject == lowered },
                       origin: try WhichDefault.origin(subject, service: service))
    }

    /// Whether `id` matches a route's caller pattern: `*` any run, `?` one character, the whole id.
    static func matches(_ pattern: String, _ id: String) -> Bool {
        let p = Array(pattern.unicodeScalars), s = Array(id.unicodeScalars)
        var (i, j, star, mark) = (0, 0, -1, 0)
        while j < s.count {
            if i < p.count, p[i] == "?" || p[i] == s[j] { i += 1; j += 1 }
            else if i < p.count, p[i] == "*" { star = i; mark = j; i += 1 }
            else if star >= 0 { i = star + 1; mark += 1; j = mark }
            else { return false }
        }
        while i < p.count, p[i] == "*" { i += 1 }
        return i == p.count
    }
}
