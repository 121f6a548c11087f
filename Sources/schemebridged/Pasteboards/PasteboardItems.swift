import DBus
import SchemeBridgeCore

/// Decoding `SetItems`' argument for the core's ``PasteboardItemGrammar``.
extension PasteboardService {
    /// The items of `SetItems`: per item, MIME type → bytes or descriptor, in the order sent
    /// (the descriptors stay owned by `value`'s `UnixFD`s: keep it alive until they are used).
    static func items(_ value: DBusValue, limits: PasteboardLimits) throws -> [[(type: String, value: PasteboardWrite.Value)]] {
        guard case .array(_, let items) = value else { return [] }
        return try PasteboardItemGrammar.items(items.map { item -> [(type: String, value: PasteboardItemGrammar.Field)] in
            guard case .dictionary(_, _, let entries) = item else { return [] }
            return entries.compactMap { entry -> (type: String, value: PasteboardItemGrammar.Field)? in
                guard case .string(let type) = entry.key else { return nil }
                switch entry.value.unwrapped {
                case .bytes(let b): return (type, .bytes(b))
                case .unixFD(let fd): return (type, .descriptor(fd.rawValue))
                case let other: return (type, .other(signature: "\(other.type)"))
                }
            }
        }, limits: limits)
    }
}
