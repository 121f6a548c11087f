/// One complete D-Bus type, as written in a signature.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case variant
    /// `a<element>`
    case array(DBusType)
    /// `a{<key><value>}`; the key is a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(<fields>)`, at least one field.
    case structure([DBusType])

    /// The type's signature text, e.g. `a{sv}`.
    public var signature: String {
        var out = ""
        write(to: &out)
        return out
    }

    public var description: String { signature }

    func write(to out: inout String) {
        switch self {
        case .byte: out += "y"
        case .boolean: out += "b"
        case .int16: out += "n"
        case .uint16: out += "q"
        case .int32: out += "i"
        case .uint32: out += "u"
        case .int64: out += "x"
        case .uint64: out += "t"
        case .double: out += "d"
        case .string: out += "s"
        case .objectPath: out += "o"
        case .signature: out += "g"
        case .unixFD: out += "h"
        case .variant: out += "v"
        case .array(let e): out += "a"; e.write(to: &out)
        case .dictionary(let k, let v): out += "a{"; k.write(to: &out); v.write(to: &out); out += "}"
        case .structure(let fields):
            out += "("
            for f in fields { f.write(to: &out) }
            out += ")"
        }
    }

    /// True for the basic (non-container) types, the only ones allowed as dictionary keys.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: return false
        default: return true
        }
    }

    /// The basic type whose libdbus type code is `code`; nil for a container's or an unknown code.
    static func basic(code: Int32) -> DBusType? {
        code >= 0 && code < basicsByCode.count ? basicsByCode[Int(code)] : nil
    }

    /// The basic types by their codes (``code``, the one table of codes), for ``basic(code:)``.
    private static let basicsByCode: [DBusType?] = {
        var table = [DBusType?](repeating: nil, count: 128)
        for type in [DBusType.byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string,
                     .objectPath, .signature, .unixFD] {
            table[Int(type.code)] = type
        }
        return table
    }()

    /// The libdbus type code of this type (`DBUS_TYPE_*`).
    var code: Int32 {
        switch self {
        case .byte: return 121  // y
        case .boolean: return 98  // b
        case .int16: return 110  // n
        case .uint16: return 113  // q
        case .int32: return 105  // i
        case .uint32: return 117  // u
        case .int64: return 120  // x
        case .uint64: return 116  // t
        case .double: return 100  // d
        case .string: return 115  // s
        case .objectPath: return 111  // o
        case .signature: return 103  // g
        case .unixFD: return 104  // h
        case .variant: return 118  // v
        case .array, .dictionary: return 97  // a
        case .structure: return 114  // r
        }
    }
}

/// A validated D-Bus signature: a sequence of complete types, at most 255 bytes,
/// containers nested no deeper than the specification allows.
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature text.
    public let rawValue: String
    /// The complete types it is made of, in order.
    public let types: [DBusType]

    /// Parses and validates `rawValue`.
    public init(_ rawValue: String) throws(InvalidNameError) {
        var parser = SignatureParser(rawValue)
        self.types = try parser.parseAll()
        self.rawValue = rawValue
    }

    /// The signature made of `types`.
    public init(_ types: [DBusType]) {
        self.types = types
        self.rawValue = types.map(\.signature).joined()
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure(error.description) }
    }

    /// The empty signature.
    public static let empty = Signature([])

    public var description: String { rawValue }

    /// Parses a signature that must hold exactly one complete type.
    public static func singleType(_ text: String) throws(InvalidNameError) -> DBusType {
        let sig = try Signature(text)
        guard sig.types.count == 1 else {
            throw InvalidNameError(kind: "signature", text: text, reason: "expected exactly one complete type")
        }
        return sig.types[0]
    }
}

struct SignatureParser {
    static let maxLength = 255
    static let maxArrayDepth = 32
    static let maxStructDepth = 32

    let text: String
    let bytes: [UInt8]
    var index = 0
    var arrayDepth = 0
    var structDepth = 0

    init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    func fail(_ reason: String) -> InvalidNameError {
        InvalidNameError(kind: "signature", text: text, reason: reason)
    }

    mutating func parseAll() throws(InvalidNameError) -> [DBusType] {
        if bytes.count > Self.maxLength { throw fail("longer than 255 bytes") }
        var out: [DBusType] = []
        while index < bytes.count { out.append(try parseOne()) }
        return out
    }

    mutating func parseOne() throws(InvalidNameError) -> DBusType {
        guard index < bytes.count else { throw fail("incomplete type at end") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            arrayDepth += 1
            defer { arrayDepth -= 1 }
            if arrayDepth > Self.maxArrayDepth { throw fail("arrays nested deeper than 32") }
            if index < bytes.count && bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try parseOne()
                guard key.isBasic else { throw fail("dictionary key must be a basic type") }
                let value = try parseOne()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                    throw fail("dictionary entry must hold exactly a key and a value")
                }
                index += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try parseOne())
        case UInt8(ascii: "("):
            structDepth += 1
            defer { structDepth -= 1 }
            if structDepth > Self.maxStructDepth { throw fail("structs nested deeper than 32") }
            var fields: [DBusType] = []
            while true {
                guard index < bytes.count else { throw fail("unterminated struct") }
                if bytes[index] == UInt8(ascii: ")") {
                    index += 1
                    break
                }
                fields.append(try parseOne())
            }
            if fields.isEmpty { throw fail("empty struct") }
            return .structure(fields)
        case UInt8(ascii: "{"): throw fail("dictionary entry outside an array")
        default:
            throw fail("unknown type code '\(String(decoding: [c], as: UTF8.self))'")
        }
    }
}
