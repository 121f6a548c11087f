/// How a decided share's items reach their target (the daemon carries it out): what a URL is
/// stored as, what type an item's data is read back as, what a file is named, when a launched
/// target's share is done, and which `org.freedesktop.Application` call an activatable target gets.
extension ShareItemSummary {
    /// The name a file goes by when the item has none (in an Inbox, in the outbox).
    public static let defaultFileName = "document"

    /// The type this item's data is read back as from the share's pasteboard: a URL as
    /// `text/plain` (a clipboard tool, a saved file), anything else as its own type.
    public var readType: String { kind == .url ? ContentTypeName.plainText : type }

    /// The pasteboard values a URL item is stored as, one item with two types: ``uriType`` and
    /// `text/plain`, both its bytes.
    public static func pasteboardValues(url: String) -> [(type: String, bytes: [UInt8])] {
        [(uriType, Array(url.utf8)), (ContentTypeName.plainText, Array(url.utf8))]
    }

    /// The pasteboard item index of item `index` among `items`: only data and URL items are on it.
    public static func pasteboardSlot(of index: Int, in items: [ShareItemSummary]) -> Int {
        items[..<index].filter { $0.kind != .file }.count
    }

    /// A name given with an item, made usable as a file name: its last path component, without
    /// control characters, at most 255 bytes; "" when nothing is left (or it is `.` or `..`).
    public static func safeName(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? ""
        var out = ""
        for scalar in last.unicodeScalars where scalar.value >= 0x20 && scalar.value != 0x7F {
            guard out.utf8.count + String(scalar).utf8.count <= 255 else { break }
            out.unicodeScalars.append(scalar)
        }
        return out == "." || out == ".." ? "" : out
    }
}

/// How a share is handed to an app target, by its id.
extension ShareTargetID {
    /// Whether the share is done once the target started: "Open in" (`OpenFile`'s way: the app
    /// is not asked to answer). Other spawned targets answer with `Reply` or their exit status.
    public var isDoneWhenStarted: Bool {
        if case .openIn = self { return true }
        return false
    }

    /// The `org.freedesktop.Application` call that hands the share to an activatable target:
    /// `ActivateAction(action, [], platform_data)` for an action, `Open(uris, platform_data)`
    /// for "Open in"; `platform_data` carries the `uris` either way.
    public var activation: ApplicationCall {
        if case .action(_, let action) = self { return .activateAction(action) }
        return .open
    }
}

/// How one shared item goes to a nearby device: a file (by its own path, or copied into the
/// outbox under its name, as ``DeviceFileSource`` decides), text (`text/plain` data that is
/// UTF-8), a URL as a URL, and any other data as an outbox file.
public enum DeviceItemRoute: Sendable, Equatable {
    /// A file or data, as a file named so (nil: the outbox names it): data always in the outbox,
    /// a file there unless ``DeviceFileSource`` sends it by its own path.
    case outboxFile(name: String?)
    /// Sent as text.
    case text(String)
    /// Sent as a URL.
    case url(String)

    /// The route of an item (`summary`), named `name` ("" for none); `url` for a URL item,
    /// `bytes` for data given inline.
    public static func of(_ summary: ShareItemSummary, name: String, url: String? = nil, bytes: [UInt8]? = nil) -> DeviceItemRoute {
        switch summary.kind {
        case .file:
            return .outboxFile(name: name.isEmpty ? ShareItemSummary.defaultFileName : name)
        case .url:
            return .url(url ?? "")
        case .data:
            if summary.type == ContentTypeName.plainText, let bytes, let text = String(validating: bytes, as: UTF8.self) { return .text(text) }
            return .outboxFile(name: name.isEmpty ? nil : name)
        }
    }
}

/// What is sent to a device: files (absolute paths the engine can read), text, or a URL.
public enum DevicePayload: Sendable, Equatable {
    /// Files, sent through the device's share plugin as `file://` URLs.
    case files([String])
    /// Text, sent as text (`shareText`).
    case text(String)
    /// A URL, sent as a URL (`shareUrl`): the device opens it.
    case url(String)

    /// A share's sends, in order: every file in one (`files`, one `shareUrls`), then text and
    /// URLs in the items' order.
    public static func sends(files: [String], others: [DevicePayload]) -> [DevicePayload] {
        (files.isEmpty ? [] : [.files(files)]) + others
    }
}
