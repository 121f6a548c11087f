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

    /// What a variant holds (a variant inside it: what that holds), as the grammar tells it apart.
    static func field(_ content: VariantContent) -> ShareItemGrammar.Field<UnixFD> {
        switch content.flattened {
        case .string(let s): .string(s)
        case .bytes(let b): .bytes(b)
        case .unixFD(let fd): .descriptor(fd)
        case .value(let v): .other(signature: "\(v.type)")
        }
    }
}
