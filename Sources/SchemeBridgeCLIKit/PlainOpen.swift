import Glibc
import SchemeBridgeContract

/// `schemebridge open URL...` with no options and only URLs (what `xdg-open`, `gio open` and
/// browsers run through our desktop entry): the whole command without the argument parser, so
/// the lean entry point serves it with nothing but the D-Bus layer loaded.
public enum PlainOpen {

    /// The URLs of the command line `argv` (`argc` arguments, program name first) when it is a
    /// plain `open` of URLs; nil when it needs the full command line (options, files, anything
    /// else). Reads the C arguments directly: `CommandLine.arguments` decodes every one of them.
    public static func urls(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String]? {
        guard argc >= 3, let sub = argv[1], strcmp(sub, "open") == 0 else { return nil }
        var urls: [String] = []
        for i in 2..<Int(argc) {
            guard let arg = argv[i] else { return nil }
            let url = String(cString: arg)
            guard URLOpening.isSchemeURL(url) else { return nil }
            urls.append(url)
        }
        return urls
    }

    /// Opens each URL on the session bus of the environment; the first failure's status (or
    /// success). Errors are reported on stderr exactly as the full `open` reports them.
    public static func run(_ urls: [String]) -> ExitStatus {
        let service: SchemeBridgeBlockingClient
        do {
            service = try ServiceClient.connect(address: nil, timeout: 30)
        } catch {
            return error.status
        }
        let options = URLOpening.options()
        var firstFailure: ExitStatus?
        for url in urls {
            do {
                _ = try URLOpening.open(url, options: options, service: service)
            } catch {
                let status = URLOpening.reportFailure(url, error)
                if firstFailure == nil { firstFailure = status }
            }
        }
        return firstFailure ?? .success
    }
}
