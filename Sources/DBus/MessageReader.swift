import CDBus

/// Reads a method call's arguments straight from its message, for a method that decodes its own
/// (``Method/init(_:inputs:outputs:annotations:decode:handler:)``): what a handler needs, without
/// a ``DBusValue`` tree for the shapes it knows. Every value read is counted and checked as
/// ``Marshal/decodeBody(_:types:limits:)`` does (its ``DecodeBudget``, its depth limit, the
/// declared types), so a message is refused with the same errors either way.
public struct MessageReader {
    var iter: DBusMessageIter
    var budget: DecodeBudget
    let depth: Int
    /// The declared types and limits of the top-level arguments, and the next one's index.
    private let types: [DBusType]
    private let limits: [Marshal.Limits]
    private var index = 0
    /// `a{sv}` and `ay`, made once: a container type is boxed (an allocation each time one is made).
    @usableFromInline static let vardictType = DBusType.dictionary(key: .string, value: .variant)
    static let bytesType = DBusType.array(.byte)

    init(message: OpaquePointer, types: [DBusType], limits: [Marshal.Limits]) {
        iter = DBusMessageIter()
        if dbus_message_iter_init(message, &iter) == 0 { iter = DBusMessageIter() }
        budget = DecodeBudget()
        depth = 0
        (self.types, self.limits) = (types, limits)
    }

    private init(inside parent: inout DBusMessageIter, budget: DecodeBudget, depth: Int) {
        iter = DBusMessageIter()
        dbus_message_iter_recurse(&parent, &iter)
        self.budget = budget
        self.depth = depth
        (types, limits) = ([], [])
    }

    /// The next top-level argument, decoded as its declaration says (its keys, its longest string).
    public mutating func argument() throws(DBusError) -> DBusValue {
        let i = index
        guard i < types.count else { throw DBusError(.invalidArgs, "the call has no argument \(i)") }
        if i > 0 { dbus_message_iter_next(&iter) }
        index += 1
        let limit = i < limits.count ? limits[i] : Marshal.Limits()
        if let max = limit.maxBytes, types[i] == .string { return .string(Marshal.text(&iter, maxBytes: max)) }
        return try Marshal.decode(&iter, type: types[i], budget: &budget, depth: depth, keys: limit.keys)
    }

    /// The next top-level argument, an `a{sv}`, as a dictionary (a key given twice: the last), only
    /// its declared keys read (``Argument/keys``): what ``argument()``'s `stringDictionary` is, read
    /// and charged in the same order, without the entries' list between.
    public mutating func vardictArgument() throws(DBusError) -> [String: DBusValue] {
        let i = index
        guard i < types.count, types[i] == Self.vardictType else { throw DBusError(.invalidArgs, "argument \(i) is not declared as an 'a{sv}'") }
        if i > 0 { dbus_message_iter_next(&iter) }
        index += 1
        let keys = i < limits.count ? limits[i].keys : nil
        var entries: [String: DBusValue] = [:]
        try eachVardictEntry { reader, key, entry throws(DBusError) in
            if keys?.contains(key) ?? true {  // else skipped unread, as the declaration says
                entries[key] = try Marshal.decode(&entry, type: .variant, budget: &reader.budget, depth: reader.depth + 1)
            }
        }
        return entries
    }

    /// The next top-level argument, an array of `element`: `body` reads each element with a
    /// reader of its own (positioned at it), in order.
    public mutating func arrayArgument(of element: DBusType, _ body: (inout MessageReader) throws(DBusError) -> Void) throws(DBusError) {
        let i = index
        guard i < types.count, case .array(let declared) = types[i], declared == element else {
            throw DBusError(.invalidArgs, "argument \(i) is not declared as an array of '\(element.signature)'")
        }
        if i > 0 { dbus_message_iter_next(&iter) }
        index += 1
        try Marshal.enter(&iter, type: types[i], budget: &budget, depth: depth)
        var items = MessageReader(inside: &iter, budget: budget, depth: depth + 1)
        while dbus_message_iter_get_arg_type(&items.iter) != CDBUS_TYPE_INVALID {
            try body(&items)
            dbus_message_iter_next(&items.iter)
        }
        budget = items.budget
    }

    /// The value here, an `a{sv}`: `body` gets each entry's key and what its variant holds, in
    /// wire order.
    public mutating func vardict(_ body: (String, VariantContent) throws(DBusError) -> Void) throws(DBusError) {
        try eachVardictEntry { reader, key, entry throws(DBusError) in try body(key, try reader.variantContent(&entry, depth: reader.depth + 1)) }
    }

    /// Enters the `a{sv}` here and, for each entry, reads its key (both charged to the budget)
    /// and calls `body` with this reader, the key and the entry's iterator at its variant.
    private mutating func eachVardictEntry(
        _ body: (inout MessageReader, String, inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        try Marshal.enter(&iter, type: Self.vardictType, budget: &budget, depth: depth)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&sub, &entry)
            try Marshal.enter(&entry, type: .string, budget: &budget, depth: depth + 1)
            let key = Marshal.text(&entry)
            dbus_message_iter_next(&entry)
            try body(&self, key, &entry)
            dbus_message_iter_next(&sub)
        }
    }

    /// The next top-level argument, an `aa{sv}`: each dictionary's entries, each value as
    /// `transform` makes it of what its variant holds (a key given twice: the last).
    @inlinable
    public mutating func vardictArrayArgument<Value>(_ transform: (VariantContent) -> Value) throws(DBusError) -> [[String: Value]] {
        var dictionaries: [[String: Value]] = []
        try arrayArgument(of: Self.vardictType) { item throws(DBusError) in
            var entries: [String: Value] = [:]
            try item.vardict { key, content throws(DBusError) in entries[key] = transform(content) }
            dictionaries.append(entries)
        }
        return dictionaries
    }

    /// What the variant at `entry` holds: a string, a byte array or a descriptor read as such;
    /// anything else decoded as a ``DBusValue`` (as ``Marshal/decode(_:type:budget:depth:keys:)`` would).
    private mutating func variantContent(_ entry: inout DBusMessageIter, depth: Int) throws(DBusError) -> VariantContent {
        try Marshal.enter(&entry, type: .variant, budget: &budget, depth: depth)
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&entry, &inner)
        switch dbus_message_iter_get_arg_type(&inner) {
        case CDBUS_TYPE_STRING:
            try Marshal.enter(&inner, type: .string, budget: &budget, depth: depth + 1)
            return .string(Marshal.text(&inner))
        case CDBUS_TYPE_UNIX_FD:
            guard case .unixFD(let fd) = try Marshal.decode(&inner, type: .unixFD, budget: &budget, depth: depth + 1) else { break }
            return .unixFD(fd)
        case CDBUS_TYPE_ARRAY where dbus_message_iter_get_element_type(&inner) == CDBUS_TYPE_BYTE:
            guard case .bytes(let bytes) = try Marshal.decode(&inner, type: Self.bytesType, budget: &budget, depth: depth + 1) else { break }
            return .bytes(bytes)
        default:
            break
        }
        guard case .variant(let value) = try Marshal.decodeVariantContent(&inner, budget: &budget, depth: depth + 1) else {
            throw DBusError(.invalidArgs, "a variant could not be read")
        }
        return .value(value)
    }
}

/// What a variant holds, as ``MessageReader/vardict(_:)`` reads it.
public enum VariantContent: Sendable {
    case string(String)
    case bytes([UInt8])
    case unixFD(UnixFD)
    /// Any other value (a nested variant as it came).
    case value(DBusValue)

    /// The same content with a nested variant's string, byte array or descriptor taken as such
    /// (any other value unwrapped of its variants).
    public var flattened: VariantContent {
        guard case .value(let value) = self else { return self }
        switch value.unwrapped {
        case .string(let s): return .string(s)
        case .bytes(let b): return .bytes(b)
        case .unixFD(let fd): return .unixFD(fd)
        case let other: return .value(other)
        }
    }
}
