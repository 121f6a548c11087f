/// x-callback-url (the convention of Drafts, Bear, Ulysses…): a URL's query may name callback
/// URLs — `x-success`, `x-error`, `x-cancel` — that the handler opens when it is done, and
/// `x-source`, the name of the app that asked. SchemeBridge checks each callback against the
/// caller's own desktop entry, sets `x-source` to the caller's verified id, and later delivers
/// a callback to that entry only (``CallbackRoutes``), so no third app that declares the same
/// scheme can receive it.
public enum XCallback {
    /// The callback keys.
    public static let keys: Set<String> = ["x-success", "x-error", "x-cancel"]

    /// The callback URLs in `url`'s query, percent-decoded, in order.
    public static func callbacks(in url: String) -> [String] {
        // Most URLs name none: without an `x-` anywhere there is no query to take apart.
        var previous: UInt8 = 0
        guard url.utf8.contains(where: { byte in defer { previous = byte }; return previous == UInt8(ascii: "x") && byte == UInt8(ascii: "-") })
        else { return [] }
        return queryItems(url).compactMap { keys.contains($0.key) ? $0.value : nil }
    }

    /// `url` with `x-source=<source>` (replacing any `x-source` it had).
    public static func settingSource(_ source: String, in url: String) -> String {
        let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
        let body = url[..<fragmentStart]
        let fragment = url[fragmentStart...]
        guard let q = body.firstIndex(of: "?") else { return body + "?x-source=" + percentEncoded(source) + fragment }
        let kept = body[body.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("x-source=") && $0 != "x-source" }
        let query = (kept + ["x-source=" + percentEncoded(source)[...]]).joined(separator: "&")
        return body[...q] + query + fragment
    }

    /// The `key=value` pairs of `url`'s query (before any `#`), values percent-decoded.
    static func queryItems(_ url: String) -> [(key: String, value: String)] {
        let body = url[..<(url.firstIndex(of: "#") ?? url.endIndex)]
        guard let q = body.firstIndex(of: "?") else { return [] }
        return body[body.index(after: q)...].split(separator: "&").compactMap { item in
            guard let eq = item.firstIndex(of: "=") else { return nil }
            return (String(item[..<eq]), percentDecoded(item[item.index(after: eq)...]))
        }
    }

    static func percentDecoded(_ text: Substring) -> String {
        String(decoding: PercentEncoding.decode(text.utf8, strict: false, plusIsSpace: true) ?? [], as: UTF8.self)
    }

    static func percentEncoded(_ text: String) -> String { PercentEncoding.encode(text.utf8) }
}
