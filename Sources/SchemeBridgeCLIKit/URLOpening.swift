import LinuxSystem
import DBus
import SchemeBridgeContract

/// Opening URLs (not files) the way `schemebridge open` does, shared by the full command line and
/// the lean entry point that serves `schemebridge open URL-or-FILE...` without the argument parser
/// (files as `OpenDocument` opens them, in C: Sources/schemebridge-lean).
public enum URLOpening {

    /// Whether `argument` starts with `scheme:` (a letter, then letters, digits, `+ . -`), as a
    /// URL does and a file name (`report.pdf`, `/path`, `./x`) does not.
    public static func hasScheme(_ argument: String) -> Bool {
        guard let colon = argument.firstIndex(of: ":"), colon != argument.startIndex else { return false }
        let scheme = argument[..<colon].utf8
        guard let first = scheme.first, (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A else { return false }
        return scheme.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2E || $0 == 0x2D }
    }

    /// Whether `argument` is a URL the service opens by its scheme: it has a scheme, and the
    /// scheme is not `file:` (a file is opened here and handed over as a descriptor).
    public static func isSchemeURL(_ argument: String) -> Bool {
        hasScheme(argument) && !argument.hasPrefix("file:")
    }

    /// The activation token this process was handed: `$XDG_ACTIVATION_TOKEN` (Wayland), else
    /// `$DESKTOP_STARTUP_ID` (X11); nil when neither is set. `open` passes it to the app it
    /// opens, `reply` back to the app that asked.
    public static var environmentActivationToken: String? {
        Terminal.environment("XDG_ACTIVATION_TOKEN") ?? Terminal.environment("DESKTOP_STARTUP_ID")
    }

    /// The options of a plain `open`: none, but the activation token the environment hands over
    /// (`$XDG_ACTIVATION_TOKEN`, else `$DESKTOP_STARTUP_ID`) unless one is given.
    public static func options(handler: String? = nil, activationToken: String? = nil, launchImage: Bool = true, timeout: UInt32? = nil,
                               pasteboard: String? = nil, ask: Bool = false) -> OpenOptions {
        OpenOptions(handler: handler,
                    activationToken: activationToken ?? environmentActivationToken,
                    launchImage: launchImage, timeout: timeout, pasteboard: pasteboard, ask: ask)
    }

    /// Asks the service to open `url` with `options`: `OpenURL` when there are none and no
    /// `results` are wanted (they are empty then), else `OpenURLWithOptions` and its result keys.
    public static func open(_ url: String, options: OpenOptions, results: Bool = false,
                            service: SchemeBridgeBlockingClient) throws(DBusError) -> [String: DBusValue] {
        if options == OpenOptions() && !results {
            _ = try service.perform(.openURL(url))
            return [:]
        }
        return try service.perform(.openURL(url, options: options)).dictionary
    }

    /// Reports on stderr that `url` could not be opened; the status to exit with.
    public static func reportFailure(_ url: String, _ error: DBusError) -> ExitStatus {
        Terminal.error("cannot open '\(shown(url))': \(ServiceClient.explain(error))", dbusError: error.name.rawValue)
        return ExitStatus(error)
    }

    /// `url` fit for a one-line message.
    public static func shown(_ url: String) -> String { URLText.shortened(url) }
}
