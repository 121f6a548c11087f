/// What is known of one host's `/.well-known/assetlinks.json`: the app ids it endorsed when it
/// was last fetched, or why it endorsed none; when, from where, and until when it counts.
public struct AppLinkRecord: Sendable, Hashable {
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
    /// Until when ``apps`` count (seconds since the epoch): a read's ``expires`` (its max-age);
    /// after a transient failure, the earlier read's, kept (``transient``); 0 when none.
    public var endorsedUntil: Int64
    /// The failure says nothing about the file: no answer for a network reason (the name did not
    /// resolve, no connection, no answer in time, the connection broke) or an HTTP 5xx. An
    /// earlier endorsement is kept until its max-age ends (``AppLinks/store(_:)``); any other
    /// answer — a 404, a redirect, a file that no longer names the app — withdraws it at once.
    public var transient: Bool

    public init(host: String, checked: Int64, expires: Int64, apps: [String], failure: String?, source: String, address: String,
                status: Int, failures: Int = 0, endorsedUntil: Int64? = nil, transient: Bool = false) {
        self.host = host
        self.checked = checked
        self.expires = expires
        self.apps = apps
        self.failure = failure
        self.source = source
        self.address = address
        self.status = status
        self.failures = failures
        self.endorsedUntil = endorsedUntil ?? (failure == nil ? expires : 0)
        self.transient = transient
    }

    /// Whether the record endorses the app with desktop ID `id` (named in ``apps`` without
    /// `.desktop`) at `now`: a read names it, or a transient failure kept an earlier read that
    /// named it and whose max-age has not ended.
    public func endorses(_ id: DesktopID, at now: Int64) -> Bool {
        apps.contains(id.appID) && (failure == nil || endorsedUntil > now)
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
