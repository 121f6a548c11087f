/// `[Privacy] BroadcastURLs=`: what `URLHandled` and `URLFailed`, as broadcast to every listener
/// of the session, carry of the URL. The caller that opened it always learns the full URL: from
/// the broadcast when that carries it, else from a copy of the signal sent to it alone.
public enum BroadcastURLs: String, Sendable, Equatable, CaseIterable {
    /// The URL without userinfo, query and fragment (`calcb://done?result=SECRET#x` →
    /// `calcb://done`): OAuth codes, x-callback results and pasteboard names stay private.
    case redacted
    /// The whole URL, to everyone (version 1 and 2's behaviour).
    case full
    /// No broadcast at all; the caller still gets its copy.
    case none
}

/// The rule behind ``BroadcastURLs``.
public enum BroadcastPrivacy {
    /// What to send for a signal about `url` under `mode`: the URL the broadcast carries (nil:
    /// no broadcast), and whether the caller gets a copy of its own with the full URL — exactly
    /// when the broadcast does not carry the full URL.
    public static func plan(_ url: String, mode: BroadcastURLs) -> (broadcast: String?, toCaller: Bool) {
        switch mode {
        case .full: return (url, false)
        case .none: return (nil, true)
        case .redacted:
            let shown = redacted(url)
            return (shown, shown != url)
        }
    }

    /// `url` without its userinfo (`user:pass@` in the authority), query and fragment. Text with no
    /// valid scheme is nothing known to be public: "".
    public static func redacted(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isScheme(bytes[..<colon]) else { return "" }
        let end = bytes[colon...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        var rest = Array(bytes[(colon + 1)..<end])
        if rest.starts(with: Array("//".utf8)) {
            let authorityEnd = rest[2...].firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            if let at = rest[2..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { rest.removeSubrange(2...at) }
        }
        return String(decoding: bytes[...colon] + rest, as: UTF8.self)
    }

    /// `message` with every occurrence of `url` as ``redacted(_:)`` shows it (a message that
    /// quotes the URL says no more than the broadcast URL).
    public static func redacted(_ message: String, quoting url: String) -> String {
        guard !url.isEmpty, message.contains(url) else { return message }
        return message.replacing(url, with: redacted(url))
    }

    /// RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    private static func isScheme(_ s: ArraySlice<UInt8>) -> Bool {
        guard let first = s.first, isAlpha(first) else { return false }
        return s.allSatisfy { isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    private static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
}
