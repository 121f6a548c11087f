/// `/.well-known/assetlinks.json` (Google's Digital Asset Links, the file Android app links
/// read): a JSON array of statements. A statement endorses a desktop app when its `relation`
/// array includes `delegate_permission/common.handle_all_urls` and its `target` is
/// `{"namespace": "freedesktop_app", "app_id": "<desktop id less .desktop>"}`. Android's own
/// statements (`"namespace": "android_app"`) and other relations are read past.
public enum AssetLinks {
    /// The largest file read (128 KiB); a bigger one endorses nothing.
    public static let maximumBytes = 128 * 1024
    /// The relation that hands the host's links to the app.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
    /// The target namespace of desktop apps.
    public static let namespace = "freedesktop_app"
    /// The path fetched on each host.
    public static let path = "/.well-known/assetlinks.json"

    /// Why a file endorses nothing.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The app ids the file endorses, in file order, without duplicates; `Malformed` when it is
    /// not a JSON array of objects (or is larger than ``maximumBytes``).
    public static func endorsedApps(_ bytes: [UInt8]) throws(Malformed) -> [String] {
        guard bytes.count <= maximumBytes else { throw Malformed(message: "larger than \(maximumBytes / 1024) KiB") }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw Malformed(message: "not JSON: \(error.message)") }
        guard case .array(let statements) = value else { throw Malformed(message: "not a JSON array of statements") }
        var apps: [String] = []
        for statement in statements {
            guard case .object = statement else { throw Malformed(message: "a statement is not a JSON object") }
            guard case .array(let relations)? = statement["relation"],
                  relations.contains(where: { $0.string == handleAllURLs }),
                  let target = statement["target"], target["namespace"]?.string == namespace,
                  let id = target["app_id"]?.string, isAppID(id), !apps.contains(id) else { continue }
            apps.append(id)
        }
        return apps
    }

    /// Whether `id` can be an app id (a desktop id less `.desktop`: no `/`, no control characters,
    /// at most 255 bytes, not ending in `.desktop`).
    public static func isAppID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255 && !id.hasSuffix(".desktop")
            && !id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") })
    }
}

/// A JSON value (RFC 8259), parsed strictly with a depth limit, for ``AssetLinks``.
enum JSONValue: Sendable, Equatable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    struct Failure: Error { let message: String }

    static let maximumDepth = 64

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)), (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    var string: String? { if case .string(let s) = self { return s }; return nil }

    /// An object's first member named `key`.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var p = Parser(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("text after the value") }
        return v
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        func fail(_ what: String) -> Failure { Failure(message: "\(what) at byte \(i)") }

        mutating func skipSpace() {
            while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        }

        mutating func literal(_ word: String, _ v: JSONValue) throws(Failure) -> JSONValue {
            let w = Array(word.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { throw fail("unexpected character") }
            i += w.count
            return v
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard depth < JSONValue.maximumDepth else { throw fail("nested too deeply") }
            guard i < bytes.count else { throw fail("unexpected end") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members: [(String, JSONValue)] = []
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                    let key = try string()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    i += 1
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unexpected end") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
                    i += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                i += 1
                var items: [JSONValue] = []
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unexpected end") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard bytes[i] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
                    i += 1
                    return .array(items)
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = i
            func digits(_ p: inout Parser) -> Int {
                let s = p.i
                while p.i < p.bytes.count, p.bytes[p.i] >= 0x30, p.bytes[p.i] <= 0x39 { p.i += 1 }
                return p.i - s
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            let n = digits(&self)
            guard n > 0, !(n > 1 && bytes[intStart] == 0x30) else { throw fail("unexpected character") }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digits(&self) > 0 else { throw fail("expected digits") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits(&self) > 0 else { throw fail("expected digits") }
            }
            return .number(String(decoding: bytes[start..<i], as: UTF8.self))
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for b in bytes[i..<i + 4] {
                let d: UInt8
                switch b {
                case 0x30...0x39: d = b - 0x30
                case 0x41...0x46: d = b - 0x41 + 10
                case 0x61...0x66: d = b - 0x61 + 10
                default: throw fail("bad \\u escape")
                }
                v = v * 16 + UInt32(d)
            }
            i += 4
            return v
        }

        mutating func string() throws(Failure) -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw fail("unterminated string") }
                let b = bytes[i]
                i += 1
                switch b {
                case UInt8(ascii: "\""):
                    guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not UTF-8") }
                    return s
                case UInt8(ascii: "\\"):
                    guard i < bytes.count else { throw fail("unterminated string") }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { throw fail("lone surrogate") }
                            i += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw fail("lone surrogate") }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default: throw fail("bad escape")
                    }
                default:
                    guard b >= 0x20 else { throw fail("control character in string") }
                    out.append(b)
                }
            }
        }
    }
}
