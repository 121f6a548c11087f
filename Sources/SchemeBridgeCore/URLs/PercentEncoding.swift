/// The one %-encoding: encoding bytes for a URL (the `file://` URL of a path, an x-callback's
/// `x-source`), and decoding `%XX` (a URL's path, a query value, an engine's `file://` argument).
public enum PercentEncoding {
    /// `bytes` with every byte but the unreserved characters (`A-Z a-z 0-9 - . _ ~`) and those of
    /// `keeping` %-encoded, in upper-case hex (a byte that is not UTF-8 too: `0xE9` as `%E9`).
    public static func encode(_ bytes: some Sequence<UInt8>, keeping: String = "") -> String {
        encode(bytes, keeping: keeping, after: "")
    }

    /// `prefix`, then `bytes` encoded as ``encode(_:keeping:)`` encodes them, built in one buffer.
    static func encode(_ bytes: some Sequence<UInt8>, keeping: String, after prefix: StaticString) -> String {
        let hex: StaticString = "0123456789ABCDEF"
        var out: [UInt8] = []
        out.reserveCapacity(prefix.utf8CodeUnitCount + bytes.underestimatedCount * 3)
        out.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        let kept = keeping.utf8
        for b in bytes {
            if isUnreserved(b) || kept.contains(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex.utf8Start[Int(b >> 4)])
                out.append(hex.utf8Start[Int(b & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes` with each `%XX` decoded. `strict`: a `%` without two hex digits after it makes
    /// the whole nil (a URL's path); else it stays as it is (text from elsewhere).
    /// `plusIsSpace`: `+` is a space (a query's form encoding).
    public static func decode(_ bytes: some Collection<UInt8>, strict: Bool, plusIsSpace: Bool = false) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var rest = bytes[...]
        while let b = rest.popFirst() {
            if b == UInt8(ascii: "%") {
                if rest.count >= 2, let hi = hexValue(rest[rest.startIndex]), let lo = hexValue(rest[rest.index(after: rest.startIndex)]) {
                    out.append(hi << 4 | lo)
                    rest = rest.dropFirst(2)
                    continue
                }
                if strict { return nil }
            }
            out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
        }
        return out
    }

    /// The `file://` URL of an absolute path given as bytes (any a file name may hold), every
    /// byte but unreserved characters and `/` %-encoded: what a handler or an engine reads back exactly.
    public static func fileURL(_ path: some Sequence<UInt8>) -> String { encode(path, keeping: "/", after: "file://") }

    /// The `file://` URL of an absolute `path`.
    public static func fileURL(path: String) -> String { fileURL(path.utf8) }

    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}
