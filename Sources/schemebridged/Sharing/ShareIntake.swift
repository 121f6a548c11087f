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

/// Decoding `Share`'s items (`aa{sv}`): each item is exactly one of `{type, data}`, `{file}` or
/// `{url}`, with an optional `name` and `title`; anything else is `InvalidArgs` naming the item.
enum ShareIntake {
    /// The items of `value`, files not yet inspected (their type comes from the descriptor).
    static func decode(_ value: DBusValue) throws(DBusError) -> [(item: Int, entries: [String: DBusValue])] {
        guard case .array(_, let items) = value else { throw DBusError(.invalidArgs, "items must be aa{sv}") }
        guard !items.isEmpty else { throw DBusError(.invalidArgs, "nothing to share: items is empty") }
        guard items.count <= ShareContract.maximumItems else {
            throw DBusError(.invalidArgs, "\(items.count) items: one share holds at most \(ShareContract.maximumItems)")
        }
        return items.enumerated().map { ($0.offset, $0.element.stringDictionary ?? [:]) }
    }

    /// Item `i` (`entries`), with `inspectFile` looking at a descriptor (given the item's `name`
    /// entry, if any).
    static func item(_ i: Int, _ entries: [String: DBusValue],
                     inspectFile: (UnixFD, _ name: String?) async throws(DBusError) -> InspectedFile) async throws(DBusError) -> SharedItem {
        typealias K = ShareContract.ItemKey
        let name = try string(entries, K.name, item: i).map(ShareItemSummary.safeName)
        _ = try string(entries, K.title, item: i)
        let present = [K.file, K.url, K.data].filter { entries[$0] != nil }
        switch present {
        case [K.file]:
            guard case .unixFD(let fd) = entries[K.file]?.unwrapped else { throw DBusError(.invalidArgs, "item \(i): 'file' must be a file descriptor (h)") }
            guard entries[K.type] == nil else { throw DBusError(.invalidArgs, "item \(i): a file's type is detected; 'type' goes with 'data'") }
            let inspected = try await inspectFile(fd, name)
            return SharedItem(payload: .file(fd), summary: ShareItemSummary(kind: .file, type: inspected.type.name), name: name ?? inspected.name,
                              facts: inspected.facts)
        case [K.url]:
            guard let url = try string(entries, K.url, item: i), entries[K.type] == nil else { throw DBusError(.invalidArgs, "item \(i): 'url' must be a string (s) alone") }
            do { _ = try SchemeURL(url) } catch { throw DBusError(.invalidArgs, "item \(i): '\(URLText.shortened(url))' is not a valid URL: \(error)") }
            return SharedItem(payload: .url(url), summary: ShareItemSummary(kind: .url, type: ShareItemSummary.uriType), name: name ?? "")
        case [K.data]:
            guard let raw = try string(entries, K.type, item: i) else { throw DBusError(.invalidArgs, "item \(i): 'data' needs its content type in 'type' (s)") }
            let type: ContentType
            do { type = try ContentType(raw) } catch { throw DBusError(.invalidArgs, "item \(i): \(error.message)") }
            switch entries[K.data]?.unwrapped {
            case .bytes(let b)?:
                return SharedItem(payload: .data(.bytes(b), holder: nil), summary: ShareItemSummary(kind: .data, type: type.name), name: name ?? "")
            case .unixFD(let fd)?:
                return SharedItem(payload: .data(.descriptor(fd.rawValue), holder: fd), summary: ShareItemSummary(kind: .data, type: type.name), name: name ?? "")
            default:
                throw DBusError(.invalidArgs, "item \(i): 'data' is a byte array (ay) or a file descriptor (h)")
            }
        default:
            throw DBusError(.invalidArgs, "item \(i) must hold exactly one of 'file' (h), 'url' (s) or 'type' (s) with 'data' (ay or h)")
        }
    }

    private static func string(_ entries: [String: DBusValue], _ key: String, item i: Int) throws(DBusError) -> String? {
        guard let v = entries[key]?.unwrapped else { return nil }
        guard case .string(let s) = v else { throw DBusError(.invalidArgs, "item \(i): '\(key)' must be a string (s), not '\(v.type)'") }
        guard s.utf8.count <= SchemeURL.maximumByteCount else { throw DBusError(.invalidArgs, "item \(i): '\(key)' is longer than \(SchemeURL.maximumByteCount) bytes") }
        return s
    }
}
