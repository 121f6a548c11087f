import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// A descriptor a share's item holds: the D-Bus message's own (closed with its last reference).

/// Decoding `Share`'s items (`aa{sv}`) for the core's ``ShareItemGrammar``: each entry's value
/// reduced to what the grammar tells apart; the items are the core's (``SharedItem/intake(_:keys:documents:runner:key:facts:)``).
enum ShareIntake {
    /// The contract's item keys, for the grammar.
    static let keys = ShareItemGrammar.Keys(file: ShareContract.ItemKey.file, url: ShareContract.ItemKey.url, type: ShareContract.ItemKey.type,
                                            data: ShareContract.ItemKey.data, name: ShareContract.ItemKey.name, title: ShareContract.ItemKey.title)

    /// The entries of each item of `value`, in order.
    static func decode(_ value: DBusValue) throws -> [[String: ShareItemGrammar.Field<UnixFD>]] {
        guard case .array(_, let items) = value else { throw DBusError(.invalidArgs, "items must be aa{sv}") }
        try ShareItemGrammar.checkCount(items.count, maximum: ShareContract.maximumItems)
        return items.map { item in
            (item.stringDictionary ?? [:]).mapValues { value -> ShareItemGrammar.Field<UnixFD> in
                switch value.unwrapped {
                case .string(let s): .string(s)
                case .bytes(let b): .bytes(b)
                case .unixFD(let fd): .descriptor(fd)
                case let v: .other(signature: "\(v.type)")
                }
            }
        }
    }
}
