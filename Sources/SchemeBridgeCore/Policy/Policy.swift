import Synchronization

/// The routing policy: which entries may take which schemes.
public struct Policy: Sendable {
    /// Schemes an entry in the user's own data dir (`$XDG_DATA_HOME/applications`, where any
    /// program of the user can drop a file) cannot take by merely listing them: such an entry
    /// becomes a candidate only when a config-dir `mimeapps.list` names it explicitly, or when it
    /// is a menu editor's copy of the system entry it masks (see ``URLRouter/isHijack(_:scheme:)``).
    /// The secure variant of each (the name with an `s` added: `webcals`, `sips`) is reserved
    /// too — see ``isReserved(_:in:)``.
    public static let defaultReservedSchemes: Set<String> = [
        "http", "file", "ftp", "sftp", "ssh", "mailto", "tel", "sms", "mms", "data",
        "javascript", "about", "blob", "ws", "irc", "webcal", "geo", "magnet", "sip", "xmpp",
    ]

    /// The rule for reserved schemes: `scheme` is reserved when `list` names it, or when it is
    /// the secure variant of a scheme `list` names (`https` for `http`, `webcals` for `webcal`,
    /// `sips` for `sip`, `wss` for `ws`, `ircs` for `irc`, `ftps` for `ftp`).
    public static func isReserved(_ scheme: String, in list: Set<String>) -> Bool {
        if list.contains(scheme) { return true }
        return scheme.count > 1 && scheme.hasSuffix("s") && list.contains(String(scheme.dropLast()))
    }

    /// The reserved schemes in force.
    public var reservedSchemes: Set<String>

    public init(reservedSchemes: Set<String> = Policy.defaultReservedSchemes) {
        self.reservedSchemes = reservedSchemes
    }

    /// `file:` is never opened by a scheme handler: files belong to the file manager.
    public static func isNeverRouted(_ scheme: String) -> Bool { scheme == "file" }

    /// Whether `pattern` (`*` any run, `?` one character; a whole-string match) matches `text`.
    public static func matches(_ pattern: Substring, _ text: Substring) -> Bool {
        var p = pattern[...], t = text[...]
        var star: (Substring, Substring)? = nil
        while !t.isEmpty {
            if let c = p.first, c == "*" {
                p = p.dropFirst()
                star = (p, t)
            } else if let c = p.first, c == "?" || c == t.first {
                p = p.dropFirst()
                t = t.dropFirst()
            } else if let s = star {
                p = s.0
                t = s.1.dropFirst()
                star = (s.0, t)
            } else {
                return false
            }
        }
        return p.allSatisfy { $0 == "*" }
    }

    /// Whether `caller` may open `entry` (its `X-SchemeBridge-AllowedCallers` `;`-list of
    /// patterns, matched against ``CallerID/text``; no key = everyone). A caller with no known
    /// identity matches nothing.
    public static func allows(caller: CallerID?, entry: DesktopEntry) -> Bool {
        guard let value = entry.extensionKeys["X-SchemeBridge-AllowedCallers"] else { return true }
        guard let caller = caller?.text else { return false }
        for pattern in value.split(separator: ";") where !pattern.isEmpty {
            if matches(pattern, caller[...]) { return true }
        }
        return false
    }
}
