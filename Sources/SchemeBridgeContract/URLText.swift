/// How the service and its clients show a URL (or any text a caller sent) in a message or a
/// log line: at most 200 characters, control characters as `?`. Only the prefix is looked
/// at, so a huge URL costs nothing here.
public enum URLText {
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
}
