import DBus

/// A minimal JSON writer for `--json` output (no Foundation on this path).
///
/// One style for every command: each output is an object (never a bare array), keys are
/// snake_case — a D-Bus dictionary's `launch-image` is `launch_image` — and a failure under
/// `--json` is an object too (``failure(status:message:)``).
enum JSON {
    /// A JSON value.
    indirect enum Value {
        case string(String)
        case number(String)
        case bool(Bool)
        case null
        case array([Value])
        case object([(String, Value)])
    }

    /// Compact one-line JSON text of `value`.
    static func text(_ value: Value) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: Value, to out: inout String) {
        switch value {
        case .string(let s): quote(s, to: &out)
        case .number(let n): out += n
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { out += "," }
                quote(key, to: &out)
                out += ":"
                write(item, to: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// The JSON form of a D-Bus value: numbers, strings, arrays, objects (string-keyed
    /// dictionaries), variants unwrapped.
    static func value(_ v: DBusValue) -> Value {
        switch v {
        case .byte(let x): return .number(String(x))
        case .boolean(let b): return .bool(b)
        case .int16(let x): return .number(String(x))
        case .uint16(let x): return .number(String(x))
        case .int32(let x): return .number(String(x))
        case .uint32(let x): return .number(String(x))
        case .int64(let x): return .number(String(x))
        case .uint64(let x): return .number(String(x))
        case .double(let x): return x.isFinite ? .number(String(x)) : .null
        case .string(let s): return .string(s)
        case .objectPath(let p): return .string(p.rawValue)
        case .signature(let s): return .string(s.rawValue)
        case .unixFD: return .null
        case .array(_, let items): return .array(items.map(value))
        case .dictionary(_, _, let entries):
            return .object(entries.map { (key(keyText($0.key)), value($0.value)) })
        case .structure(let fields): return .array(fields.map(value))
        case .variant(let inner): return value(inner)
        case .bytes(let b): return .array(b.map { .number(String($0)) })
        }
    }

    /// `name` in the key style of the output: snake_case (`content-type` → `content_type`).
    static func key(_ name: String) -> String {
        String(name.map { $0 == "-" ? "_" : $0 })
    }

    /// The members of a result dictionary from the service, keys in the output's style, sorted.
    static func members(_ results: [String: DBusValue]) -> [(String, Value)] {
        results.keys.sorted().map { (key($0), value(results[$0]!)) }
    }

    private static func keyText(_ key: DBusValue) -> String {
        if case .string(let s) = key { return s }
        if case .string(let s) = value(key) { return s }
        return text(value(key))
    }
}
