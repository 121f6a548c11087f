/// One key/value pair of a D-Bus dictionary (a `{kv}` dict entry).
public struct DictEntry: Hashable, Sendable {
    public var key: DBusValue
    public var value: DBusValue
    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

/// A D-Bus value of any type, keeping its exact D-Bus type: containers carry their
/// element types, so an empty `as` stays an `as` and a variant keeps what it holds.
/// A byte array (`ay`) is stored compactly as ``bytes(_:)`` (one byte a byte): received `ay`
/// values always come as `.bytes`; `.array(element: .byte, …)` is still accepted for sending.
public enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    case unixFD(UnixFD)
    /// An array of values of `element` type (all elements must have that type).
    case array(element: DBusType, [DBusValue])
    /// A dictionary `a{kv}`, its entries in wire order.
    case dictionary(key: DBusType, value: DBusType, [DictEntry])
    case structure([DBusValue])
    indirect case variant(DBusValue)
    /// An `ay`, stored compactly.
    case bytes([UInt8])

    /// The exact D-Bus type of this value.
    public var type: DBusType {
        switch self {
        case .byte: return .byte
        case .boolean: return .boolean
        case .int16: return .int16
        case .uint16: return .uint16
        case .int32: return .int32
        case .uint32: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .double: return .double
        case .string: return .string
        case .objectPath: return .objectPath
        case .signature: return .signature
        case .unixFD: return .unixFD
        case .array(let e, _): return .array(e)
        case .dictionary(let k, let v, _): return .dictionary(key: k, value: v)
        case .structure(let fields): return .structure(fields.map(\.type))
        case .variant: return .variant
        case .bytes: return .array(.byte)
        }
    }

    /// The D-Bus specification's largest array, in bytes (64 MiB).
    public static let maximumArrayBytes = 1 << 26

    /// Checks that every element of every container has the container's declared type
    /// and that strings hold no NUL byte (D-Bus strings cannot carry one).
    public func validate() throws(DBusError) {
        switch self {
        case .string(let s):
            if s.utf8.withContiguousStorageIfAvailable({ $0.contains(0) }) ?? s.utf8.contains(0) {
                throw DBusError(.invalidArgs, "a D-Bus string cannot contain a NUL character")
            }
        case .array(let e, let items):
            for item in items {
                guard item.type == e else {
                    throw DBusError(.invalidArgs, "array of '\(e.signature)' holds a '\(item.type.signature)'")
                }
                try item.validate()
            }
        case .dictionary(let k, let v, let entries):
            guard k.isBasic else { throw DBusError(.invalidArgs, "dictionary key type '\(k.signature)' is not basic") }
            for entry in entries {
                guard entry.key.type == k, entry.value.type == v else {
                    throw DBusError(.invalidArgs, "dictionary a{\(k.signature)\(v.signature)} holds a '\(entry.key.type.signature)' → '\(entry.value.type.signature)' entry")
                }
                try entry.key.validate()
                try entry.value.validate()
            }
        case .structure(let fields):
            if fields.isEmpty { throw DBusError(.invalidArgs, "a struct needs at least one field") }
            for f in fields { try f.validate() }
        case .variant(let inner):
            try inner.validate()
        case .bytes(let b):
            if b.count > Self.maximumArrayBytes {
                throw DBusError(.invalidArgs, "a D-Bus array holds at most 64 MiB (\(b.count) bytes given); send large data as a file descriptor")
            }
        default:
            break
        }
    }
}

extension DBusValue {
    /// The string, object path or signature text held, if any.
    public var string: String? {
        switch self {
        case .string(let s): return s
        case .objectPath(let p): return p.rawValue
        case .signature(let g): return g.rawValue
        default: return nil
        }
    }
    /// The boolean held, if any.
    public var bool: Bool? { if case .boolean(let b) = self { return b } else { return nil } }
    /// The value held, unwrapping any variants: the one variant unwrap (an `a{sv}` entry's value,
    /// a property's new value, a `v` argument).
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }
    /// Any integer held, widened to Int64 (UInt64 values above Int64.max give nil).
    public var integer: Int64? {
        switch self {
        case .byte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .uint16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .uint32(let v): return Int64(v)
        case .int64(let v): return v
        case .uint64(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        default: return nil
        }
    }
    /// The elements of an array, if this is one (a byte array's bytes as `.byte` values).
    public var arrayElements: [DBusValue]? {
        switch self {
        case .array(_, let items): return items
        case .bytes(let b): return b.map { .byte($0) }
        default: return nil
        }
    }
    /// The bytes of an `ay`, in either form.
    public var byteArray: [UInt8]? {
        switch self {
        case .bytes(let b): return b
        case .array(.byte, let items):
            var out: [UInt8] = []
            out.reserveCapacity(items.count)
            for case .byte(let b) in items { out.append(b) }
            return out.count == items.count ? out : nil
        default: return nil
        }
    }
    /// The entries of a dictionary with string keys (`a{s…}`), if this is one; a later
    /// duplicate key wins.
    public var stringDictionary: [String: DBusValue]? {
        guard case .dictionary(.string, _, let entries) = self else { return nil }
        var out: [String: DBusValue] = [:]
        out.reserveCapacity(entries.count)
        for e in entries { if case .string(let k) = e.key { out[k] = e.value } }
        return out
    }

    /// An `as` array.
    public static func strings(_ items: [String]) -> DBusValue { .array(element: .string, items.map { .string($0) }) }
    /// An `a{sv}` dictionary, entries sorted by key for a stable wire order. Each value goes in
    /// the entry's one variant; a value that is a variant already — one decoded from a message,
    /// say — is that variant, not wrapped in a second (a strict reader, sd-bus's, refuses a hint or
    /// a result in two). A variant inside the entry's variant takes an explicit ``dictionary(key:value:_:)``.
    public static func vardict(_ items: [String: DBusValue]) -> DBusValue {
        .dictionary(key: .string, value: .variant, items.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), $0.value.asEntryVariant) })
    }

    /// This value as an `a{sv}` entry's variant: itself when it is a variant, else in one.
    var asEntryVariant: DBusValue {
        if case .variant = self { return self }
        return .variant(self)
    }
}
