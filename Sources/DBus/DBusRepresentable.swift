/// A Swift type with a fixed D-Bus type, convertible to and from ``DBusValue``.
public protocol DBusRepresentable: Sendable {
    /// The D-Bus type every value of this Swift type has.
    static var dbusType: DBusType { get }
    /// Converts from a D-Bus value of exactly ``dbusType``; nil for any other value.
    init?(dbusValue: DBusValue)
    /// This value as a D-Bus value of ``dbusType``.
    var dbusValue: DBusValue { get }
}

extension Bool: DBusRepresentable {
    public static var dbusType: DBusType { .boolean }
    public init?(dbusValue: DBusValue) { guard case .boolean(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .boolean(self) }
}
extension UInt8: DBusRepresentable {
    public static var dbusType: DBusType { .byte }
    public init?(dbusValue: DBusValue) { guard case .byte(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .byte(self) }
}
extension Int16: DBusRepresentable {
    public static var dbusType: DBusType { .int16 }
    public init?(dbusValue: DBusValue) { guard case .int16(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .int16(self) }
}
extension UInt16: DBusRepresentable {
    public static var dbusType: DBusType { .uint16 }
    public init?(dbusValue: DBusValue) { guard case .uint16(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .uint16(self) }
}
extension Int32: DBusRepresentable {
    public static var dbusType: DBusType { .int32 }
    public init?(dbusValue: DBusValue) { guard case .int32(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .int32(self) }
}
extension UInt32: DBusRepresentable {
    public static var dbusType: DBusType { .uint32 }
    public init?(dbusValue: DBusValue) { guard case .uint32(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .uint32(self) }
}
extension Int64: DBusRepresentable {
    public static var dbusType: DBusType { .int64 }
    public init?(dbusValue: DBusValue) { guard case .int64(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .int64(self) }
}
extension UInt64: DBusRepresentable {
    public static var dbusType: DBusType { .uint64 }
    public init?(dbusValue: DBusValue) { guard case .uint64(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .uint64(self) }
}
extension Double: DBusRepresentable {
    public static var dbusType: DBusType { .double }
    public init?(dbusValue: DBusValue) { guard case .double(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .double(self) }
}
extension String: DBusRepresentable {
    public static var dbusType: DBusType { .string }
    public init?(dbusValue: DBusValue) { guard case .string(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .string(self) }
}
extension ObjectPath: DBusRepresentable {
    public static var dbusType: DBusType { .objectPath }
    public init?(dbusValue: DBusValue) { guard case .objectPath(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .objectPath(self) }
}
extension Signature: DBusRepresentable {
    public static var dbusType: DBusType { .signature }
    public init?(dbusValue: DBusValue) { guard case .signature(let v) = dbusValue else { return nil }; self = v }
    public var dbusValue: DBusValue { .signature(self) }
}

/// A variant: a value whose type travels with it (`v`).
public struct Variant: DBusRepresentable, Hashable {
    /// The value held.
    public var value: DBusValue
    public init(_ value: DBusValue) { self.value = value }
    public init<T: DBusRepresentable>(_ value: T) { self.value = value.dbusValue }
    public static var dbusType: DBusType { .variant }
    public init?(dbusValue: DBusValue) { guard case .variant(let v) = dbusValue else { return nil }; self.value = v }
    public var dbusValue: DBusValue { .variant(value) }
}

extension Array: DBusRepresentable where Element: DBusRepresentable {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    public init?(dbusValue: DBusValue) {
        guard let items = dbusValue.arrayElements, dbusValue.type == .array(Element.dbusType) else { return nil }
        var out: [Element] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let v = Element(dbusValue: item) else { return nil }
            out.append(v)
        }
        self = out
    }
    public var dbusValue: DBusValue { .array(element: Element.dbusType, map(\.dbusValue)) }
}

extension Dictionary: DBusRepresentable where Key: DBusRepresentable, Value: DBusRepresentable {
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }
    public init?(dbusValue: DBusValue) {
        guard case .dictionary(let k, let v, let entries) = dbusValue, k == Key.dbusType, v == Value.dbusType else { return nil }
        var out: [Key: Value] = [:]
        out.reserveCapacity(entries.count)
        for entry in entries {
            guard let key = Key(dbusValue: entry.key), let value = Value(dbusValue: entry.value) else { return nil }
            out[key] = value
        }
        self = out
    }
    public var dbusValue: DBusValue {
        .dictionary(key: Key.dbusType, value: Value.dbusType, map { DictEntry($0.key.dbusValue, $0.value.dbusValue) })
    }
}
