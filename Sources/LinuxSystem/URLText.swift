/// How the service, its core and its clients show a URL (or any text a caller sent): shortened
/// in a message or a log line, sanitized in a signal. The one place for both.
public enum URLText {
    /// `text` for a message or a log line: at most `limit` characters, control characters as `?`.
    /// Only the prefix is looked at, so a huge URL costs nothing here.
    public static func shortened(_ text: String, limit: Int = 200) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { return out + "…" }
            out.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
            count += 1
        }
        return out
    }

    /// `text` safe to carry in a signal: valid UTF-8 without NUL, at most `maxBytes` bytes.
    public static func sanitized(_ text: String, maxBytes: Int) -> String {
        let s = text.utf8.count > maxBytes ? String(decoding: text.utf8.prefix(maxBytes), as: UTF8.self) : text
        return s.utf8.contains(0) ? String(s.unicodeScalars.filter { $0 != "\0" }) : s
    }
}
