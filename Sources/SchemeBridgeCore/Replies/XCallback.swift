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
        queryItems(url).compactMap { keys.contains($0.key) ? $0.value : nil }
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
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.first {
            bytes = bytes.dropFirst()
            if b == UInt8(ascii: "%"), bytes.count >= 2, let hi = hex(bytes[bytes.startIndex]), let lo = hex(bytes[bytes.startIndex + 1]) {
                out.append(hi << 4 | lo)
                bytes = bytes.dropFirst(2)
            } else if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            let c = Character(Unicode.Scalar(b))
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "-._~".contains(c) {
                out.append(c)
            } else {
                let digits = Array("0123456789ABCDEF")
                out += "%" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
            }
        }
        return out
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}

/// Text of a URL for a message: the first 100 characters.
enum URLRouterText {
    static func short(_ url: String) -> String { url.count > 100 ? String(url.prefix(100)) + "…" : url }
}
