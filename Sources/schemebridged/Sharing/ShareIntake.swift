import LinuxSystem
import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// One item of a `Share` call, decoded and checked. A file's descriptor stays open (owned by its
/// ``UnixFD``) until the share is delivered; data and URLs go to the share's pasteboard.
struct SharedItem: Sendable {
    enum Payload: Sendable {
        /// `{file: h}`: the caller's descriptor, its name and detected type.
        case file(UnixFD)
        /// `{type: s, data: ay|h}`.
        case data(PasteboardWrite.Value, holder: UnixFD?)
        /// `{url: s}`.
        case url(String)
    }

    let payload: Payload
    let summary: ShareItemSummary
    /// The item's name (`name`, else the file's own; "" for data without one).
    let name: String
    /// A file's facts as the share was made, when it named a device as its target (for sending
    /// the file by its own path).
    var facts: SharedFileFacts? = nil

    /// The pasteboard types and values this item is stored as (data and URLs only).
    var pasteboardValues: [(type: String, value: PasteboardWrite.Value)]? {
        switch payload {
        case .file: return nil
        case .data(let value, _): return [(summary.type, value)]
        case .url(let url): return ShareItemSummary.pasteboardValues(url: url).map { ($0.type, .bytes($0.bytes)) }
        }
    }
}

/// What a file item's descriptor was found to be, in one look on a descriptor thread.
struct InspectedFile: Sendable {
    /// The name it was opened by.
    let name: String
    /// Its detected type.
    let type: ContentType
    /// What a device send decides from (``DeviceFileSource``), when the share names a device.
    let facts: SharedFileFacts?
}

/// Decoding `Share`'s items (`aa{sv}`) by the core's ``ShareItemGrammar``: each entry's value
/// reduced to what the grammar tells apart, the item built from what it accepts.
enum ShareIntake {
    /// The contract's item keys, for the grammar.
    static let keys = ShareItemGrammar.Keys(file: ShareContract.ItemKey.file, url: ShareContract.ItemKey.url, type: ShareContract.ItemKey.type,
                                            data: ShareContract.ItemKey.data, name: ShareContract.ItemKey.name, title: ShareContract.ItemKey.title)

    /// The items of `value`, files not yet inspected (their type comes from the descriptor).
    static func decode(_ value: DBusValue) throws -> [(item: Int, entries: [String: DBusValue])] {
        guard case .array(_, let items) = value else { throw DBusError(.invalidArgs, "items must be aa{sv}") }
        try ShareItemGrammar.checkCount(items.count, maximum: ShareContract.maximumItems)
        return items.enumerated().map { ($0.offset, $0.element.stringDictionary ?? [:]) }
    }

    /// Item `i` (`entries`), with `inspectFile` looking at a descriptor (given the item's `name`
    /// entry, if any).
    static func item(_ i: Int, _ entries: [String: DBusValue],
                     inspectFile: (UnixFD, _ name: String?) async throws -> InspectedFile) async throws -> SharedItem {
        let fields = entries.mapValues { value -> ShareItemGrammar.Field<UnixFD> in
            switch value.unwrapped {
            case .string(let s): .string(s)
            case .bytes(let b): .bytes(b)
            case .unixFD(let fd): .descriptor(fd)
            case let v: .other(signature: "\(v.type)")
            }
        }
        let item: ShareItemGrammar.Item<UnixFD>
        item = try ShareItemGrammar.item(i, fields, keys: keys)
        switch item {
        case .file(let fd, let name):
            let inspected = try await inspectFile(fd, name)
            return SharedItem(payload: .file(fd), summary: ShareItemSummary(kind: .file, type: inspected.type.name), name: name ?? inspected.name,
                              facts: inspected.facts)
        case .url(let url, let name):
            return SharedItem(payload: .url(url), summary: ShareItemSummary(kind: .url, type: ShareItemSummary.uriType), name: name ?? "")
        case .bytes(let b, let type, let name):
            return SharedItem(payload: .data(.bytes(b), holder: nil), summary: ShareItemSummary(kind: .data, type: type.name), name: name ?? "")
        case .data(let fd, let type, let name):
            return SharedItem(payload: .data(.descriptor(fd.rawValue), holder: fd), summary: ShareItemSummary(kind: .data, type: type.name), name: name ?? "")
        }
    }
}
