/// What is known of one host's `/.well-known/assetlinks.json`: the app ids it endorsed when it
/// was last fetched, or why it endorsed none; when, from where, and until when it counts.
public struct AppLinkRecord: Sendable, Equatable {
    /// The host (normalised).
    public var host: String
    /// When it was fetched (seconds since the epoch).
    public var checked: Int64
    /// Until when the answer counts (the response's `max-age`, clamped); a failure's: when it
    /// may be fetched again.
    public var expires: Int64
    /// The app ids the file endorses (empty when it failed).
    public var apps: [String]
    /// Why the file endorses nothing: not fetched (an HTTP status, a redirect, a TLS or network
    /// failure, a timeout), too large, or malformed; nil when it was read.
    public var failure: String?
    /// The URL fetched.
    public var source: String
    /// The address connected to (`ADDRESS:PORT`), `""` when none.
    public var address: String
    /// The HTTP status (0 when there was no response).
    public var status: Int
    /// Failures in a row (each doubles the wait before the next fetch).
    public var failures: Int

    public init(host: String, checked: Int64, expires: Int64, apps: [String], failure: String?, source: String, address: String,
                status: Int, failures: Int = 0) {
        self.host = host
        self.checked = checked
        self.expires = expires
        self.apps = apps
        self.failure = failure
        self.source = source
        self.address = address
        self.status = status
        self.failures = failures
    }

    /// An answer counts for at least 5 minutes and at most 7 days; without `max-age`, 1 day.
    public static let minimumLifetime: Int64 = 300
    public static let maximumLifetime: Int64 = 7 * 86_400
    public static let defaultLifetime: Int64 = 86_400

    /// The lifetime of a file served with `Cache-Control: max-age=N` (nil: none given).
    public static func lifetime(maxAge: Int64?) -> Int64 {
        min(max(maxAge ?? defaultLifetime, minimumLifetime), maximumLifetime)
    }

    /// How long to wait after the `n`th failure in a row: 1, 2, 4… minutes, at most 6 hours.
    public static func retryDelay(failures n: Int) -> Int64 {
        min(Int64(60) << Int64(min(max(n - 1, 0), 20)), 6 * 3600)
    }

    /// `max-age` of a `Cache-Control` value (`no-store`/`no-cache` count as 0), nil when absent.
    public static func maxAge(cacheControl: String?) -> Int64? {
        guard let cacheControl else { return nil }
        var answer: Int64?
        for part in cacheControl.split(separator: ",") {
            let d = part.drop { $0 == " " }.lowercased()
            if d == "no-store" || d == "no-cache" { return 0 }
            if d.hasPrefix("max-age="), let v = Int64(d.dropFirst(8).prefix { $0.isNumber }) { answer = v }
        }
        return answer
    }
}
