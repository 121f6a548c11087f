import Glibc

/// The process environment as a dictionary (read once, at start).
public enum ProcessEnvironment {
    /// Every `NAME=value` of `environ`.
    public static func current() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                env[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            p += 1
        }
        return env
    }
}
