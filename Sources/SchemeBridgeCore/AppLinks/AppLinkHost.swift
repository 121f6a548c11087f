import CCurl

/// Hosts as app links compare them: ASCII (IDNA 2008 with UTS 46 mapping, through libidn2 as libcurl uses it, the
/// `xn--` form), lower case, without a trailing dot. `Bücher.Example.` and `xn--bcher-kva.example`
/// are one host.
public enum AppLinkHost {
    /// The longest host kept (RFC 1035: 253 characters).
    public static let maximumLength = 253

    /// `text` normalised, or nil when it is no DNS host name (a port, userinfo, a path, an
    /// IP literal in brackets, an empty label, a label over 63 characters or with characters
    /// other than letters, digits and `-`).
    public static func normalized(_ text: some StringProtocol) -> String? {
        if let plain = plainASCII(text.utf8) { return plain }
        var t = String(text)
        if t.hasSuffix(".") { t.removeLast() }
        guard !t.isEmpty, t.utf8.count <= 1024 else { return nil }
        guard !t.utf8.contains(where: { forbidden[Int($0)] }) else { return nil }
        var ascii: String
        if t.utf8.allSatisfy({ $0 < 0x80 }) {
            ascii = t
        } else {
            guard let converted = t.withCString({ sb_idn2_ascii_host($0) }) else { return nil }
            ascii = String(cString: converted)
            idn2_free(converted)
        }
        ascii = lowercasedASCII(ascii)
        if ascii.hasSuffix(".") { ascii.removeLast() }
        guard isValidASCIIHost(ascii) else { return nil }
        return ascii
    }

    /// ``normalized(_:)`` of a host written in ASCII without a forbidden byte (most are), in
    /// one pass over its bytes: `.some(nil)` when it is no host name; nil when it has other
    /// bytes (the general path decides).
    private static func plainASCII(_ bytes: some Collection<UInt8>) -> String?? {
        guard bytes.count <= 1024, bytes.allSatisfy({ $0 < 0x80 && !forbidden[Int($0)] }) else { return nil }
        var b = bytes.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 32 : $0 }
        // As the general path: a trailing dot goes, and again after the mapping.
        if b.last == UInt8(ascii: ".") { b.removeLast() }
        guard !b.isEmpty else { return .some(nil) }
        if b.last == UInt8(ascii: ".") { b.removeLast() }
        return .some(isValidASCIIHost(b) ? String(decoding: b, as: UTF8.self) : nil)
    }

    /// The bytes no host has: controls, space, DEL, and URL and list delimiters (a table, built once).
    private static let forbidden: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for b in 0..<0x21 { table[b] = true }
        table[0x7F] = true
        for b in " /:@?#[]%\\*;,=\"'<>^`{}|".utf8 { table[Int(b)] = true }
        return table
    }()

    /// Whether `host` is lower-case LDH labels (1–63 characters, no `-` first or last) of at
    /// most ``maximumLength`` in all.
    static func isValidASCIIHost(_ host: String) -> Bool { isValidASCIIHost(Array(host.utf8)) }

    static func isValidASCIIHost(_ host: [UInt8]) -> Bool {
        guard !host.isEmpty, host.count <= maximumLength else { return false }
        var length = 0, previous: UInt8 = UInt8(ascii: ".")
        for c in host {
            if c == UInt8(ascii: ".") {
                guard (1...63).contains(length), previous != UInt8(ascii: "-") else { return false }
                length = 0
            } else {
                guard (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") else { return false }
                if length == 0, c == UInt8(ascii: "-") { return false }
                length += 1
            }
            previous = c
        }
        return (1...63).contains(length) && previous != UInt8(ascii: "-")
    }

    static func lowercasedASCII(_ s: String) -> String {
        String(decoding: s.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

/// One host an entry declares in `X-SchemeBridge-AppLinks=`: a host (`example.com`) or every
/// host below one (`*.example.org`: `a.example.org`, `a.b.example.org`, not `example.org`
/// itself). A wildcard is endorsed by the file of the host it names (`example.org`), as
/// Android verifies `*.example.org`.
public struct AppLinkHostPattern: Sendable, Hashable, CustomStringConvertible {
    /// The normalised host, without the `*.`.
    public let host: String
    /// Whether it stands for every host below ``host``.
    public let isWildcard: Bool

    /// Parses one declared value; nil when it is no host (see ``AppLinkHost/normalized(_:)``).
    public init?(_ text: some StringProtocol) {
        var t = Substring(text)
        let wildcard = t.hasPrefix("*.")
        if wildcard { t = t.dropFirst(2) }
        guard let host = AppLinkHost.normalized(t) else { return nil }
        // A wildcard over a top-level label alone (`*.com`) would claim a whole registry.
        if wildcard && !host.contains(".") { return nil }
        self.host = host
        self.isWildcard = wildcard
    }

    /// Whether the pattern covers `host` (normalised).
    public func matches(_ host: String) -> Bool {
        isWildcard ? host.hasSuffix("." + self.host) : host == self.host
    }

    /// The host whose `/.well-known/assetlinks.json` endorses the pattern.
    public var verificationHost: String { host }

    public var description: String { isWildcard ? "*." + host : host }
}
