/// Why a URL or a scheme string was refused.
///
/// Every case carries enough to write a message a person can act on; ``description`` is that
/// message. The service maps all of these to `InvalidURL` (or `InvalidArgs` for a bare scheme).
public enum SchemeURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The string was empty.
    case empty
    /// The string is longer than ``SchemeURL/maximumByteCount`` UTF-8 bytes.
    case tooLong(byteCount: Int, limit: Int)
    /// The string contains a control or line-separator character (C0, DEL, C1, U+2028, U+2029).
    /// `offset` is the UTF-8 byte offset of the character.
    case controlCharacter(scalar: UInt32, offset: Int)
    /// There is no `:` so there is no scheme (`"todolist"`, `"/tmp/x"`).
    case missingScheme
    /// The part before the first `:` is not `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    case invalidScheme(String)

    public var description: String {
        switch self {
        case .empty:
            return "the URL is empty; give a URL such as 'todolist://add?task=milk'"
        case .tooLong(let count, let limit):
            _ = count
            return "the URL is longer than the limit of \(limit) bytes (64 KiB)"
        case .controlCharacter(let scalar, let offset):
            let hex = String(scalar, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return "the URL contains the control character U+\(padded) at byte \(offset); "
                + "control characters (including newlines and tabs) must be percent-encoded"
        case .missingScheme:
            return "the URL has no scheme; it must start with a scheme followed by ':' "
                + "(for example 'todolist:' in 'todolist://add')"
        case .invalidScheme(let scheme):
            let shown = scheme.count > 40 ? String(scheme.prefix(40)) + "…" : scheme
            return "'\(shown)' is not a valid URL scheme; a scheme starts with a letter and "
                + "contains only letters, digits, '+', '-' and '.'"
        }
    }
}

/// A validated URL scheme, lower-cased (RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`).
///
/// Schemes compare case-insensitively; this type stores the lower-cased form, so `Scheme("ToDo")`
/// equals `Scheme("todo")`.
public struct Scheme: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The lower-cased scheme name, without the `:`.
    public let name: String

    /// Validates a bare scheme string (no `:`), as `HandlersForScheme` receives it.
    /// - Throws: ``SchemeURLError/empty`` or ``SchemeURLError/invalidScheme(_:)``.
    public init(_ string: String) throws(SchemeURLError) {
        if string.isEmpty { throw .empty }
        guard Scheme.isValid(string.utf8) else { throw .invalidScheme(string) }
        self.name = Scheme.lowercase(string.utf8)
    }

    /// Builds a scheme from a name already known to be valid (internal fast path).
    init(validatedLowercase name: String) {
        self.name = name
    }

    /// Whether `bytes` is a syntactically valid scheme.
    public static func isValid<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var first = true
        for b in bytes {
            let isAlpha = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if first {
                guard isAlpha else { return false }
                first = false
                continue
            }
            let isDigit = b >= 0x30 && b <= 0x39
            guard isAlpha || isDigit || b == 0x2B || b == 0x2D || b == 0x2E else { return false }
        }
        return !first
    }

    /// Whether `string` is a syntactically valid scheme.
    public static func isValid(_ string: String) -> Bool { isValid(string.utf8) }

    static func lowercase<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        // Most schemes are lower-case already: then no intermediate array.
        guard bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The MIME type that desktop entries use to declare this scheme: `x-scheme-handler/<name>`.
    public var mimeType: String { "x-scheme-handler/" + name }

    public var description: String { name }

    public static func < (lhs: Scheme, rhs: Scheme) -> Bool { lhs.name < rhs.name }

    /// If `mimeType` is `x-scheme-handler/<scheme>` (case-insensitive) with a valid scheme,
    /// the lower-cased scheme; otherwise nil.
    public static func fromMimeType(_ mimeType: some StringProtocol) -> String? {
        let utf8 = mimeType.utf8
        var i = utf8.startIndex
        // "x-scheme-handler/", case-insensitively, without copying the bytes.
        for p in mimeTypePrefix {
            guard i != utf8.endIndex else { return nil }
            var b = utf8[i]
            if b >= 0x41 && b <= 0x5A { b += 0x20 }
            guard b == p else { return nil }
            i = utf8.index(after: i)
        }
        let rest = utf8[i...]
        guard isValid(rest) else { return nil }
        return lowercase(rest)
    }

    private static let mimeTypePrefix: [UInt8] = Array("x-scheme-handler/".utf8)
}

/// A URL that SchemeBridge accepts: a valid scheme before the first `:`, no control characters,
/// at most ``maximumByteCount`` UTF-8 bytes.
///
/// The original string is kept byte for byte in ``string``; that is what reaches the handler.
/// Refused characters: C0 controls U+0000–U+001F (so also tab, CR and LF), DEL U+007F, C1
/// controls U+0080–U+009F, and the Unicode line and paragraph separators U+2028/U+2029 (they
/// end a line in many text protocols and logs). Everything else, including spaces, quotes, `$`,
/// backticks and `;`, is allowed: it is never given to a shell.
public struct SchemeURL: Hashable, Sendable, CustomStringConvertible {
    /// The largest URL accepted, in UTF-8 bytes (64 KiB).
    public static let maximumByteCount = 64 * 1024

    /// The URL exactly as given.
    public let string: String
    /// Its scheme, lower-cased.
    public let scheme: Scheme

    /// Validates `string`.
    /// - Throws: a ``SchemeURLError`` saying what is wrong.
    public init(_ string: String) throws(SchemeURLError) {
        let utf8 = string.utf8
        if utf8.isEmpty { throw .empty }
        let count = utf8.count
        if count > SchemeURL.maximumByteCount {
            throw .tooLong(byteCount: count, limit: SchemeURL.maximumByteCount)
        }
        var offset = 0
        for scalar in string.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (v >= 0x80 && v <= 0x9F) || v == 0x2028 || v == 0x2029 {
                throw .controlCharacter(scalar: v, offset: offset)
            }
            offset += UTF8.width(scalar)
        }
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { throw .missingScheme }
        let schemeBytes = utf8[utf8.startIndex..<colon]
        if schemeBytes.isEmpty { throw .missingScheme }
        guard Scheme.isValid(schemeBytes) else {
            throw .invalidScheme(String(decoding: schemeBytes, as: UTF8.self))
        }
        self.string = string
        self.scheme = Scheme(validatedLowercase: Scheme.lowercase(schemeBytes))
    }

    public var description: String { string }

    /// True for `file:` URLs.
    public var isFileURL: Bool { scheme.name == "file" }

    /// For a `file:` URL on this machine (empty authority or `localhost`), the percent-decoded
    /// local path; nil otherwise (other schemes, remote hosts, `%00`, or a path that does not
    /// decode to UTF-8: ``localFilePathBytes`` has it).
    public var localFilePath: String? {
        localFilePathBytes.flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// For a `file:` URL on this machine (empty authority or `localhost`), the percent-decoded
    /// local path as bytes — any a file name may hold, as the kernel takes them (`%E9` is the byte
    /// 0xE9, as GLib's `g_filename_from_uri`); nil for other schemes, remote hosts and `%00`.
    public var localFilePathBytes: [UInt8]? {
        guard isFileURL else { return nil }
        var bytes = Array(string.utf8.dropFirst(5))
        if bytes.starts(with: Array("//".utf8)) {
            bytes.removeFirst(2)
            let slash = bytes.firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            let host = String(decoding: bytes[0..<slash], as: UTF8.self).lowercased()
            guard host.isEmpty || host == "localhost" else { return nil }
            bytes = Array(bytes[slash...])
        }
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        // Drop query and fragment.
        if let cut = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            bytes = Array(bytes[..<cut])
        }
        guard let decoded = SchemeURL.percentDecode(bytes), !decoded.contains(0) else { return nil }
        return decoded
    }

    static func percentDecode(_ bytes: [UInt8]) -> [UInt8]? { PercentEncoding.decode(bytes, strict: true) }
}
