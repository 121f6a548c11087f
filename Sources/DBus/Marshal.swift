import CDBus
import Glibc

/// Conversion between ``DBusValue`` and libdbus message iterators. Everything here runs on
/// the connection's loop thread, the only thread that touches libdbus handles.
enum Marshal {
    /// Appends `values` to the body of `message`. Values must already be validated.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for v in values { try append(v, to: &iter) }
    }

    private static func oom() -> DBusError { DBusError(.noMemory, "out of memory while building a D-Bus message") }

    private static func appendBasic<T>(_ value: T, code: Int32, to iter: inout DBusMessageIter) throws(DBusError) {
        var v = value
        let ok = withUnsafePointer(to: &v) { dbus_message_iter_append_basic(&iter, code, $0) }
        if ok == 0 { throw oom() }
    }

    static func appendText(_ text: String, code: Int32, to iter: inout DBusMessageIter) throws(DBusError) {
        var holdsNUL = false
        let ok = text.withCString { cstr -> dbus_bool_t in
            // A NUL inside ends the C string early (one `strlen`, not a walk of the view).
            guard strlen(cstr) == text.utf8.count else {
                holdsNUL = true
                return 1
            }
            var p: UnsafePointer<CChar>? = cstr
            return withUnsafePointer(to: &p) { dbus_message_iter_append_basic(&iter, code, $0) }
        }
        if holdsNUL { throw DBusError(.invalidArgs, "a D-Bus string cannot contain a NUL character") }
        if ok == 0 { throw oom() }
    }

    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(let v): try appendBasic(v, code: CDBUS_TYPE_BYTE, to: &iter)
        case .boolean(let v): try appendBasic(dbus_bool_t(v ? 1 : 0), code: CDBUS_TYPE_BOOLEAN, to: &iter)
        case .int16(let v): try appendBasic(v, code: CDBUS_TYPE_INT16, to: &iter)
        case .uint16(let v): try appendBasic(v, code: CDBUS_TYPE_UINT16, to: &iter)
        case .int32(let v): try appendBasic(v, code: CDBUS_TYPE_INT32, to: &iter)
        case .uint32(let v): try appendBasic(v, code: CDBUS_TYPE_UINT32, to: &iter)
        case .int64(let v): try appendBasic(v, code: CDBUS_TYPE_INT64, to: &iter)
        case .uint64(let v): try appendBasic(v, code: CDBUS_TYPE_UINT64, to: &iter)
        case .double(let v): try appendBasic(v, code: CDBUS_TYPE_DOUBLE, to: &iter)
        case .string(let s): try appendText(s, code: CDBUS_TYPE_STRING, to: &iter)
        case .objectPath(let p): try appendText(p.rawValue, code: CDBUS_TYPE_OBJECT_PATH, to: &iter)
        case .signature(let g): try appendText(g.rawValue, code: CDBUS_TYPE_SIGNATURE, to: &iter)
        case .unixFD(let fd): try appendBasic(fd.rawValue, code: CDBUS_TYPE_UNIX_FD, to: &iter)
        case .bytes(let bytes):
            try appendBytes(bytes, to: &iter)
        case .array(let element, let items):
            if element == .byte {
                guard let bytes = value.byteArray else { throw DBusError(.invalidArgs, "array of 'y' holds other values") }
                try appendBytes(bytes, to: &iter)
            } else {
                try container(CDBUS_TYPE_ARRAY, element.signature, &iter) { sub throws(DBusError) in
                    for item in items {
                        guard item.type == element else {
                            throw DBusError(.invalidArgs, "array of '\(element.signature)' holds a '\(item.type.signature)'")
                        }
                        try append(item, to: &sub)
                    }
                }
            }
        case .dictionary(let k, let v, let entries):
            try container(CDBUS_TYPE_ARRAY, "{" + k.signature + v.signature + "}", &iter) { sub throws(DBusError) in
                for entry in entries {
                    guard entry.key.type == k, entry.value.type == v else {
                        throw DBusError(.invalidArgs, "dictionary a{\(k.signature)\(v.signature)} holds a '\(entry.key.type.signature)' → '\(entry.value.type.signature)' entry")
                    }
                    try container(CDBUS_TYPE_DICT_ENTRY, nil, &sub) { e throws(DBusError) in
                        try append(entry.key, to: &e)
                        try append(entry.value, to: &e)
                    }
                }
            }
        case .structure(let fields):
            if fields.isEmpty { throw DBusError(.invalidArgs, "a struct needs at least one field") }
            try container(CDBUS_TYPE_STRUCT, nil, &iter) { sub throws(DBusError) in
                for f in fields { try append(f, to: &sub) }
            }
        case .variant(let inner):
            try container(CDBUS_TYPE_VARIANT, inner.type.signature, &iter) { sub throws(DBusError) in
                try append(inner, to: &sub)
            }
        }
    }

    private static func appendBytes(_ bytes: [UInt8], to iter: inout DBusMessageIter) throws(DBusError) {
        try container(CDBUS_TYPE_ARRAY, "y", &iter) { sub throws(DBusError) in
            let ok = bytes.withUnsafeBufferPointer { buf -> dbus_bool_t in
                var base = buf.baseAddress
                return withUnsafePointer(to: &base) { dbus_message_iter_append_fixed_array(&sub, CDBUS_TYPE_BYTE, $0, Int32(buf.count)) }
            }
            if ok == 0 { throw oom() }
        }
    }

    private static func container(
        _ code: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, code, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, code, nil, &sub)
        }
        if opened == 0 { throw oom() }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        if dbus_message_iter_close_container(&iter, &sub) == 0 { throw oom() }
    }

    // MARK: - Decoding

    /// What a declared argument lets decoding skip (see ``Argument/keys`` and ``Argument/maxBytes``).
    struct Limits: Sendable, Hashable {
        var keys: Set<String>?
        var maxBytes: Int?
    }

    /// Decodes the body of `message`, whose signature parses to `types`, within a
    /// ``DecodeBudget``; `limits[i]`, when given, applies to argument `i`.
    static func decodeBody(_ message: OpaquePointer, types: [DBusType], limits: [Limits] = []) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var budget = DecodeBudget()
        var out: [DBusValue] = []
        out.reserveCapacity(types.count)
        for (i, t) in types.enumerated() {
            if i > 0 { dbus_message_iter_next(&iter) }
            if i < limits.count, let max = limits[i].maxBytes, t == .string {
                out.append(.string(text(&iter, maxBytes: max)))
                continue
            }
            out.append(try decode(&iter, type: t, budget: &budget, depth: 0, keys: i < limits.count ? limits[i].keys : nil))
        }
        return out
    }


    private static func mismatch(_ t: DBusType, _ got: Int32) -> DBusError {
        DBusError(.invalidArgs, "message body does not match its signature: expected '\(t.signature)', found type code \(got)")
    }

    @inline(__always)
    private static func basic<T>(_ iter: inout DBusMessageIter, _ zero: T) -> T {
        var v = zero
        withUnsafeMutablePointer(to: &v) { dbus_message_iter_get_basic(&iter, $0) }
        return v
    }

    static func text(_ iter: inout DBusMessageIter) -> String {
        var p: UnsafePointer<CChar>? = nil
        withUnsafeMutablePointer(to: &p) { dbus_message_iter_get_basic(&iter, $0) }
        guard let p else { return "" }
        return String(cString: p)
    }

    /// A string argument, cut to `maxBytes + 1` bytes when longer (libdbus validated it as UTF-8).
    static func text(_ iter: inout DBusMessageIter, maxBytes: Int) -> String {
        var p: UnsafePointer<CChar>? = nil
        withUnsafeMutablePointer(to: &p) { dbus_message_iter_get_basic(&iter, $0) }
        guard let p else { return "" }
        let length = strnlen(p, maxBytes + 1)
        return p.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The checks and the count of every value decoded: the type found is `type`, not nested
    /// too deep, within the budget.
    static func enter(_ iter: inout DBusMessageIter, type: DBusType, budget: inout DecodeBudget, depth: Int) throws(DBusError) {
        let code = dbus_message_iter_get_arg_type(&iter)
        guard code == type.code else { throw mismatch(type, code) }
        guard depth < DecodeBudget.maximumDepth else {
            throw DBusError(.invalidArgs, "the message nests containers more than \(DecodeBudget.maximumDepth) deep")
        }
        try budget.chargeValue()
    }

    static func decode(_ iter: inout DBusMessageIter, type: DBusType, budget: inout DecodeBudget, depth: Int,
                       keys: Set<String>? = nil) throws(DBusError) -> DBusValue {
        try enter(&iter, type: type, budget: &budget, depth: depth)
        switch type {
        case .byte: return .byte(basic(&iter, UInt8(0)))
        case .boolean: return .boolean(basic(&iter, dbus_bool_t(0)) != 0)
        case .int16: return .int16(basic(&iter, Int16(0)))
        case .uint16: return .uint16(basic(&iter, UInt16(0)))
        case .int32: return .int32(basic(&iter, Int32(0)))
        case .uint32: return .uint32(basic(&iter, UInt32(0)))
        case .int64: return .int64(basic(&iter, Int64(0)))
        case .uint64: return .uint64(basic(&iter, UInt64(0)))
        case .double: return .double(basic(&iter, Double(0)))
        case .string: return .string(text(&iter))
        case .objectPath: return .objectPath(ObjectPath(unchecked: text(&iter)))
        case .signature:
            let s = text(&iter)
            do { return .signature(try Signature(s)) } catch { throw DBusError(.invalidArgs, error.description) }
        case .unixFD: return .unixFD(UnixFD(owning: basic(&iter, Int32(-1))))
        case .array(let element):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            if element == .byte {
                var ptr: UnsafePointer<UInt8>? = nil
                var n: Int32 = 0
                withUnsafeMutablePointer(to: &ptr) { dbus_message_iter_get_fixed_array(&sub, $0, &n) }
                let bytes = ptr.map { UnsafeBufferPointer(start: $0, count: Int(n)) } ?? UnsafeBufferPointer(start: nil, count: 0)
                return .bytes(Array(bytes))
            }
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
                items.append(try decode(&sub, type: element, budget: &budget, depth: depth + 1))
                dbus_message_iter_next(&sub)
            }
            return .array(element: element, items)
        case .dictionary(let k, let v):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var entries: [DictEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                var e = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &e)
                let key = try decode(&e, type: k, budget: &budget, depth: depth + 1)
                dbus_message_iter_next(&e)
                if let keys, case .string(let name) = key, !keys.contains(name) {
                    // Not a key anyone reads: skip its value without building it.
                    dbus_message_iter_next(&sub)
                    continue
                }
                let value = try decode(&e, type: v, budget: &budget, depth: depth + 1)
                entries.append(DictEntry(key, value))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: k, value: v, entries)
        case .structure(let fields):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var values: [DBusValue] = []
            values.reserveCapacity(fields.count)
            for (i, f) in fields.enumerated() {
                if i > 0 { dbus_message_iter_next(&sub) }
                values.append(try decode(&sub, type: f, budget: &budget, depth: depth + 1))
            }
            return .structure(values)
        case .variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return try decodeVariantContent(&sub, budget: &budget, depth: depth + 1)
        }
    }

    /// The value a variant holds (`sub`: inside it, at `depth`), as the variant.
    static func decodeVariantContent(_ sub: inout DBusMessageIter, budget: inout DecodeBudget, depth: Int) throws(DBusError) -> DBusValue {
        // A basic value (most are) is read by its type code, without its signature's copy and parse.
        if let basic = DBusType.basic(code: dbus_message_iter_get_arg_type(&sub)) {
            return .variant(try decode(&sub, type: basic, budget: &budget, depth: depth))
        }
        guard let raw = dbus_message_iter_get_signature(&sub) else {
            throw DBusError(.noMemory, "out of memory while reading a variant")
        }
        let sigText = String(cString: raw)
        dbus_free(raw)
        let inner: DBusType
        do { inner = try Signature.singleType(sigText) } catch { throw DBusError(.invalidArgs, error.description) }
        return .variant(try decode(&sub, type: inner, budget: &budget, depth: depth))
    }
}

extension Marshal {
    /// Marshals `values` into a message, serializes it to wire bytes, parses those back
    /// and decodes them: the full libdbus round trip, without a bus. For tests and tools.
    public static func wireRoundTrip(_ values: [DBusValue]) throws(DBusError) -> [DBusValue] {
        for v in values { try v.validate() }
        guard let m = dbus_message_new_signal("/test", "org.example.Test", "RoundTrip") else {
            throw DBusError(.noMemory, "out of memory")
        }
        defer { dbus_message_unref(m) }
        try append(values, to: m)
        dbus_message_set_serial(m, 1)
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(m, &buffer, &length) != 0, let buffer else {
            throw DBusError(.noMemory, "cannot serialize the message")
        }
        defer { dbus_free(buffer) }
        var err = DBusError_C()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let parsed = dbus_message_demarshal(buffer, length, &err) else {
            throw ConnectionCore.error(from: &err, fallback: "cannot parse the serialized message")
        }
        defer { dbus_message_unref(parsed) }
        let sig = String(cString: dbus_message_get_signature(parsed))
        let types: [DBusType]
        do { types = try Signature(sig).types } catch { throw DBusError(.invalidArgs, error.description) }
        return try decodeBody(parsed, types: types)
    }
}
