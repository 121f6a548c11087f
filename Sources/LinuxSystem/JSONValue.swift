/// A JSON value (RFC 8259), and the project's one JSON reader and writer (no Foundation on these
/// paths): the dialogs' messages (`SchemeBridgeContract`'s `DialogJSON`), a host's
/// `assetlinks.json` (`SchemeBridgeCore`'s `AssetLinks`) and the command line's `--json` output.
///
/// The reader (``init(parsing:)``) is strict: UTF-8, one value with white space around it, no
/// control characters or lone surrogates in strings, numbers as the grammar has them. Nesting
/// deeper than ``maximumDepth`` is an error, never a deep recursion. The writer (``text``) writes
/// one line: strings escape line ends (and U+2028, U+2029, which some readers take for one), and
/// an object's members named twice are written once, the first.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Number)
    case string(String)
    case array([JSONValue])
    /// Members in order (a name may come twice in what was read: ``subscript(_:)`` finds the first).
    case object([(String, JSONValue)])

    /// A JSON number, kept as its text (an integer of any size is read and written exactly).
    public struct Number: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, CustomStringConvertible {
        /// The number as JSON text.
        public let text: String

        /// An integer.
        public init(_ value: some BinaryInteger) { text = String(value) }

        /// A double: written as an integer when it is one (below 10^15), else as Swift prints it;
        /// a value JSON has no number for (infinite, NaN) is written as `null`.
        public init(_ value: Double) {
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
                text = String(Int64(value))
            } else {
                text = value.isFinite ? String(value) : "null"
            }
        }

        /// `text` when it is a JSON number; nil otherwise.
        public init?(_ text: String) {
            var reader = Reader(bytes: Array(text.utf8))
            guard (try? reader.number()) != nil, reader.at == reader.bytes.count else { return nil }
            self.text = text
        }

        init(checked text: String) { self.text = text }

        public init(integerLiteral value: Int64) { self.init(value) }
        public init(floatLiteral value: Double) { self.init(value) }

        /// The number as a double (nil for text no double reads).
        public var double: Double? { Double(text) }
        public var description: String { text }
    }

    /// Why bytes are not JSON: what was wrong, at which byte.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The deepest nesting read (arrays and objects inside each other).
    public static let maximumDepth = 32

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The string, when this is one.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An object's first member named `key` (nil: none, or not an object).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    // MARK: reading

    /// The value in `bytes` (UTF-8 JSON: one value, white space around it).
    public init(parsing bytes: [UInt8]) throws(Failure) {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.fail("text after the value") }
        self = value
    }

    /// The value in `bytes`; nil when they are not JSON (``init(parsing:)`` says why).
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONValue(parsing: bytes)
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        func fail(_ what: String) -> Failure { Failure(message: "\(what) at byte \(at)") }

        func peek(_ ascii: Unicode.Scalar) -> Bool { at < bytes.count && bytes[at] == UInt8(ascii: ascii) }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func expect(_ ascii: Unicode.Scalar, _ what: String) throws(Failure) {
            guard peek(ascii) else { throw fail("expected \(what)") }
            at += 1
        }

        mutating func literal(_ word: String, _ v: JSONValue) throws(Failure) -> JSONValue {
            let w = Array(word.utf8)
            guard at + w.count <= bytes.count, bytes[at..<at + w.count].elementsEqual(w) else { throw fail("unexpected character") }
            at += w.count
            return v
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard at < bytes.count else { throw fail("unexpected end") }
            switch bytes[at] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < JSONValue.maximumDepth else { throw fail("nested deeper than \(JSONValue.maximumDepth)") }
                return bytes[at] == UInt8(ascii: "{") ? try object(depth: depth) : try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return .number(try number())
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            at += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if peek("}") { at += 1; return .object(members) }
            while true {
                skipSpace()
                guard peek("\"") else { throw fail("expected a member name") }
                let key = try string()
                skipSpace()
                try expect(":", "':'")
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                if peek(",") { at += 1; continue }
                try expect("}", "',' or '}'")
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            at += 1
            var items: [JSONValue] = []
            skipSpace()
            if peek("]") { at += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                if peek(",") { at += 1; continue }
                try expect("]", "',' or ']'")
                return .array(items)
            }
        }

        mutating func digits() -> Int {
            let start = at
            while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 { at += 1 }
            return at - start
        }

        mutating func number() throws(Failure) -> Number {
            let start = at
            if peek("-") { at += 1 }
            let integer = at
            let n = digits()
            guard n > 0, !(n > 1 && bytes[integer] == 0x30) else { throw fail("unexpected character") }
            if peek(".") {
                at += 1
                guard digits() > 0 else { throw fail("expected digits") }
            }
            if peek("e") || peek("E") {
                at += 1
                if peek("+") || peek("-") { at += 1 }
                guard digits() > 0 else { throw fail("expected digits") }
            }
            return Number(checked: String(decoding: bytes[start..<at], as: UTF8.self))
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard at + 4 <= bytes.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for b in bytes[at..<at + 4] {
                switch b {
                case 0x30...0x39: v = v * 16 + UInt32(b - 0x30)
                case 0x41...0x46: v = v * 16 + UInt32(b - 0x41 + 10)
                case 0x61...0x66: v = v * 16 + UInt32(b - 0x61 + 10)
                default: throw fail("bad \\u escape")
                }
            }
            at += 4
            return v
        }

        mutating func string() throws(Failure) -> String {
            at += 1  // the opening quote
            var out: [UInt8] = []
            while true {
                guard at < bytes.count else { throw fail("unterminated string") }
                let b = bytes[at]
                at += 1
                switch b {
                case UInt8(ascii: "\""):
                    // Strictly UTF-8: invalid bytes make the text invalid (no replacement characters).
                    guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not UTF-8") }
                    return s
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { throw fail("unterminated string") }
                    let e = bytes[at]
                    at += 1
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
                            guard peek("\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else { throw fail("lone surrogate") }
                            at += 2
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

    // MARK: writing

    /// The value as compact JSON text on one line.
    public var text: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.text
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            var written: Set<String> = []
            for (key, value) in members where written.insert(key).inserted {
                if written.count > 1 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // Control characters, and the line and paragraph separators some readers take for line ends.
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
