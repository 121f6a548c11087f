import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Decoding `SetItems`' argument; pasteboard failures as the contract's D-Bus errors.
extension PasteboardService {
    /// The items of `SetItems`: per item, MIME type → bytes or descriptor, in the order sent
    /// (the descriptors stay owned by `value`'s `UnixFD`s: keep it alive until they are used).
    static func items(_ value: DBusValue, limits: PasteboardLimits) throws -> [[(type: String, value: PasteboardWrite.Value)]] {
        guard case .array(_, let items) = value else { return [] }
        try PasteboardWrite.check(itemCount: items.count, limits: limits)
        var out: [[(type: String, value: PasteboardWrite.Value)]] = []
        for (i, item) in items.enumerated() {
            guard case .dictionary(_, _, let entries) = item else { continue }
            try PasteboardWrite.check(typeCount: entries.count, item: i, limits: limits)
            var values: [(type: String, value: PasteboardWrite.Value)] = []
            for entry in entries {
                guard case .string(let raw) = entry.key else { continue }
                let type = try PasteboardType.validated(raw)
                guard !values.contains(where: { $0.type == type }) else { throw DBusError(.invalidArgs, "item \(i) names '\(type)' twice") }
                switch entry.value.unwrapped {
                case .bytes(let b): values.append((type, .bytes(b)))
                case .unixFD(let fd): values.append((type, .descriptor(fd.rawValue)))
                case let other:
                    throw DBusError(.invalidArgs, "item \(i)'s '\(type)' is '\(other.type)': data is a byte array (ay) or a file descriptor (h)")
                }
            }
            out.append(values)
        }
        return out
    }
}
