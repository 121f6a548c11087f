import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge open URL|FILE...`: like `xdg-open`, through the service's policy: URLs go to
/// their scheme's handler, files (paths and `file://` URIs) to the app for their type, which opens
/// the file itself (in place, so an editor can save it) or, with `--copy`, a read-only copy in its
/// Inbox. Returns once each handler has started; never waits for it to exit.
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open URLs and files with the applications that handle them (like xdg-open).",
        discussion: """
            Each URL is handed to the default handler of its scheme (or --handler) as exactly one \
            argument; no shell runs. A file (a path, or a file:// URI) is opened here and handed to the service \
            as a descriptor; the application for its type opens the file itself, as with xdg-open (writable \
            when you may write it; a sandboxed app gets it through the document portal), or with --copy a \
            read-only copy in its Inbox ($XDG_DATA_HOME/schemebridge/inbox/APP/). \
            The command returns as soon as the handler has started. \
            With several arguments every one is tried and the status is that of the first failure \
            (2: a file that does not exist).
            """)

    @ArgumentParser.Argument(help: ArgumentHelp("The URLs and files to open, e.g. 'todolist://add?task=milk' or ./report.pdf.", valueName: "url-or-file"),
                             completion: .file())
    var urls: [String]

    @Option(name: .long, help: ArgumentHelp("Use this desktop entry instead of the default (see `schemebridge handlers`).", valueName: "desktop-id"),
            completion: DynamicCompletion.desktopIDs)
    var handler: String?

    @Option(name: .long, help: ArgumentHelp("An activation token to hand to the app (default: $XDG_ACTIVATION_TOKEN, else $DESKTOP_STARTUP_ID).", valueName: "token"))
    var activationToken: String?

    @Flag(name: .long, help: "Do not show the handler's launch image.")
    var noLaunchImage = false

    @Option(name: .long, help: ArgumentHelp("A pasteboard of yours (its name or path) that the URL's handler is granted read access to before it starts.", valueName: "name"))
    var pasteboard: String?

    @Flag(name: .long, help: "Let the user choose the application in a chooser (exit 5 when cancelled).")
    var ask = false

    @Option(name: .long, help: ArgumentHelp("With --ask: the window the chooser belongs to, x11:XID (hexadecimal) or wayland:HANDLE (exported with xdg-foreign).",
                                            valueName: "window"))
    var parentWindow: String?

    @Flag(name: .long, help: "Give files' applications a read-only copy in their Inbox instead of the file itself.")
    var copy = false

    @Flag(name: .long, help: "Wait for the handler's reply and print it (exit 0 success, 4 failed, 5 cancelled).")
    var wait = false

    @Option(name: .long, help: ArgumentHelp("With --wait: seconds the handler has to reply (default 300).", valueName: "seconds"))
    var replyTimeout: UInt32?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one URL to open") }
    }

    func run() throws {
        if wait {
            var options = Self.options(handler: handler, activationToken: activationToken, launchImage: !noLaunchImage, timeout: replyTimeout,
                                       pasteboard: pasteboard, ask: ask)
            options.parentWindow = parentWindow
            let status = try WaitForReply.openAll(urls, options: options,
                                                  json: output.json, service: client.client(asking: ask))
            if status != .success { throw status.exitCode }
            return
        }
        let status = try Self.openAll(urls, handler: handler, activationToken: activationToken, launchImage: !noLaunchImage,
                                      pasteboard: pasteboard, ask: ask, parentWindow: parentWindow, copy: copy, json: output.json,
                                      service: client.client(asking: ask))
        if status != .success { throw status.exitCode }
    }

    /// Opens each URL; returns the first failure's status (or success). Errors are reported on
    /// stderr (and, with `json`, as one JSON object a URL on stdout).
    /// Files are opened in place unless `copy`.
    static func openAll(_ urls: [String], handler: String?, activationToken: String?, launchImage: Bool, pasteboard: String? = nil, ask: Bool = false,
                        parentWindow: String? = nil, copy: Bool = false, json: Bool, service: SchemeBridgeBlockingClient) throws -> ExitStatus {
        var options = Self.options(handler: handler, activationToken: activationToken, launchImage: launchImage, pasteboard: pasteboard, ask: ask)
        options.parentWindow = parentWindow
        options.mode = copy ? .copy : .inPlace
        var firstFailure: ExitStatus?
        for url in urls {
            let status = open(url, options: options, json: json, service: service)
            if status != .success, firstFailure == nil { firstFailure = status }
        }
        return firstFailure ?? .success
    }

    private static func open(_ url: String, options: OpenOptions, json: Bool, service: SchemeBridgeBlockingClient) -> ExitStatus {
        if let path = OpenDocument.path(url) {
            return OpenDocument.open(path, argument: url, options: options, json: json, service: service)
        }
        do {
            let results = try URLOpening.open(url, options: options, results: json, service: service)
            if json { JSON.out([("url", .string(url)), ("opened", .bool(true))] + JSON.members(results)) }
            return .success
        } catch {
            return failed(url, error, json: json)
        }
    }

    /// Reports that `argument` (a URL, or with `key` "file" a file) could not be opened (stderr,
    /// and with `json` its object, `"opened":false` and the error object); its status.
    static func failed(_ argument: String, key: String = "url", _ error: DBusError, json: Bool) -> ExitStatus {
        let mark = Terminal.errors.count
        let status = URLOpening.reportFailure(argument, error)
        if json { JSON.out(notOpened(argument, key: key, status, since: mark)) }
        return status
    }

    /// The object of an argument that was not opened: `{"url"|"file":…,"opened":false,"error":{…}}`,
    /// the error from what was reported since `mark`.
    static func notOpened(_ argument: String, key: String, _ status: ExitStatus, since mark: Int) -> [(String, JSON.Value)] {
        [(key, .string(argument)), ("opened", .bool(false)), ("error", JSON.error(status, since: mark))]
    }

    /// The options the command line asks for (the token from the environment when not given).
    static func options(handler: String?, activationToken: String?, launchImage: Bool, timeout: UInt32? = nil,
                        pasteboard: String? = nil, ask: Bool = false) -> OpenOptions {
        URLOpening.options(handler: handler, activationToken: activationToken, launchImage: launchImage, timeout: timeout, pasteboard: pasteboard, ask: ask)
    }

    /// `url` fit for a one-line message.
    static func shown(_ url: String) -> String { URLOpening.shown(url) }
}
