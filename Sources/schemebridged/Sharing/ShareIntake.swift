import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Reading `Share`'s items (`aa{sv}`) for the core's ``ShareItemGrammar``, straight from the
/// call's message (``MessageReader``): each entry's value reduced to what the grammar tells
/// apart; the items are the core's (``SharedItem/intake(_:keys:documents:runner:key:facts:)``).
enum ShareIntake {
    /// Each item's entries, in order.
    typealias Items = [[String: ShareItemGrammar.Field<UnixFD>]]

    /// The contract's item keys, for the grammar.
    static let keys = ShareItemGrammar.Keys(file: ShareContract.ItemKey.file, url: ShareContract.ItemKey.url, type: ShareContract.ItemKey.type,
                                            data: ShareContract.ItemKey.data, name: ShareContract.ItemKey.name, title: ShareContract.ItemKey.title)

    /// `Share`'s arguments as its handler takes them.
    struct Arguments: Sendable {
        let items: Items
        let options: [String: DBusValue]
    }

    /// Reads `Share(aa{sv} items, a{sv} options)` (the items unchecked: ``checked(_:)``, where the
    /// share checks them, after its options).
    static func read(_ reader: inout MessageReader) throws(DBusError) -> Arguments {
        var items: Items = []
        try reader.arrayArgument(of: .dictionary(key: .string, value: .variant)) { item throws(DBusError) in
            var entries: [String: ShareItemGrammar.Field<UnixFD>] = [:]
            try item.vardict { key, content throws(DBusError) in entries[key] = field(content) }  // a key given twice: the last
            items.append(entries)
        }
        return Arguments(items: items, options: try reader.argument().stringDictionary ?? [:])
    }

    /// `items`, when their number is one a share may hold.
    static func checked(_ items: Items) throws(ServiceFailure) -> Items {
        try ShareItemGrammar.checkCount(items.count, maximum: ShareContract.maximumItems)
        return items
    }

    /// What a variant holds, as the grammar tells it apart (a variant inside it: what that holds).
    static func field(_ content: VariantContent) -> ShareItemGrammar.Field<UnixFD> {
        switch content {
        case .string(let s): .string(s)
        case .bytes(let b): .bytes(b)
        case .unixFD(let fd): .descriptor(fd)
        case .value(let value):
            switch value.unwrapped {
            case .string(let s): .string(s)
            case .bytes(let b): .bytes(b)
            case .unixFD(let fd): .descriptor(fd)
            case let v: .other(signature: "\(v.type)")
            }
        }
    }
}
