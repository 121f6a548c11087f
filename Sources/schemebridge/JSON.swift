import DBus
import LinuxSystem

/// The `--json` output, written by LinuxSystem's ``JSONValue`` (no Foundation on this path), and
/// the one path every command prints JSON through (``out(_:)``).
///
/// One shape for every command (docs/GUIDE.md, "The command line"): each output line is an object
/// (never a bare array), keys are snake_case — a D-Bus dictionary's `launch-image` is
/// `launch_image` — and no object has a key twice (the writer keeps the first). Whatever fails
/// carries an `error` member, always the same object (``error(_:message:dbusError:)``): on the
/// answer it spoils (`open`'s object for that URL, `handlers`' empty list), else alone.
enum JSON {
    /// A JSON value: LinuxSystem's ``JSONValue``, the project's one reader and writer.
    typealias Value = JSONValue

    /// Prints `members` as one object on a line of standard output.
    static func out(_ members: [(String, Value)]) {
        Terminal.out(text(.object(members)))
    }

    /// The error object: `{"exit_status":2,"reason":"not_found","dbus_error":"…"|null,"message":"…"}`
    /// — the exit status, its word (``reason(_:)``), the D-Bus error name when the service or the
    /// bus answered with one, and what was said on stderr.
    static func error(_ status: Int32, message: String, dbusError: String?) -> Value {
        .object([("exit_status", .number(.init(status))), ("reason", .string(reason(status))),
                 ("dbus_error", dbusError.map { .string($0) } ?? .null), ("message", .string(message))])
    }

    /// The error object for a failure with `status`, from what was reported on stderr since
    /// `mark` (a count of ``Terminal/errors``): its messages (`fallback` when none) and the last
    /// D-Bus error among them, unless `dbusError` names one.
    static func error(_ status: ExitStatus, since mark: Int, fallback: String = "", dbusError: String? = nil) -> Value {
        let said = Terminal.errors.dropFirst(mark).joined(separator: "\n")
        return error(status.rawValue, message: said.isEmpty ? fallback : said, dbusError: dbusError ?? Terminal.lastDBusError(since: mark))
    }

    /// The word for an exit status: `usage`, `not_found`, `no_handler`, `failed`, `cancelled`
    /// (`success` for 0).
    static func reason(_ status: Int32) -> String {
        switch ExitStatus(rawValue: status) {
        case .usage: return "usage"
        case .notFound: return "not_found"
        case .noHandler: return "no_handler"
        case .cancelled: return "cancelled"
        case .success: return "success"
        case .failed, nil: return "failed"
        }
    }

    /// Compact one-line JSON text of `value`.
    static func text(_ value: Value) -> String { value.text }

    /// The JSON form of a D-Bus value: numbers, strings, arrays, objects (string-keyed
    /// dictionaries), variants unwrapped.
    static func value(_ v: DBusValue) -> Value {
        switch v {
        case .byte(let x): return .number(.init(x))
        case .boolean(let b): return .bool(b)
        case .int16(let x): return .number(.init(x))
        case .uint16(let x): return .number(.init(x))
        case .int32(let x): return .number(.init(x))
        case .uint32(let x): return .number(.init(x))
        case .int64(let x): return .number(.init(x))
        case .uint64(let x): return .number(.init(x))
        case .double(let x): return x.isFinite ? JSONValue.Number(String(x)).map { .number($0) } ?? .null : .null
        case .string(let s): return .string(s)
        case .objectPath(let p): return .string(p.rawValue)
        case .signature(let s): return .string(s.rawValue)
        case .unixFD: return .null
        case .array(_, let items): return .array(items.map(value))
        case .dictionary(_, _, let entries):
            return .object(entries.map { (key(keyText($0.key)), value($0.value)) })
        case .structure(let fields): return .array(fields.map(value))
        case .variant(let inner): return value(inner)
        case .bytes(let b): return .array(b.map { .number(.init($0)) })
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
