import DBus

/// The names of `io.github.schemebridge.Share1` (version 3), on ``Contract/objectPath``:
/// `Share(aa{sv} items, a{sv} options) → o request` and `ShareTargets(as types) → a(ssss)`.
public enum ShareContract {
    /// The interface.
    public static let interface: InterfaceName = "io.github.schemebridge.Share1"
    /// `Share(aa{sv} items, a{sv} options) → o`: hand items to a target; the answer comes as the
    /// request's `Response` (0 shared with `target`, 1 cancelled, 2 failed).
    public static let share: MemberName = "Share"
    /// `ShareTargets(as types) → a(ssss)`: (id, name, icon, kind) of every target that accepts
    /// items of all these types.
    public static let shareTargets: MemberName = "ShareTargets"

    /// The keys of one item.
    public enum ItemKey {
        /// `type` (s): the content type of `data`.
        public static let type = "type"
        /// `data` (ay or h): the bytes, or a descriptor to read them from.
        public static let data = "data"
        /// `file` (h): an open descriptor of a regular file (the proof of access, as for `OpenFile`).
        public static let file = "file"
        /// `url` (s): a URL.
        public static let url = "url"
        /// `name` (s): a file name for the item (the Inbox copy's name, the suggested name to save as).
        public static let name = "name"
        /// `title` (s): what the item is, for a person.
        public static let title = "title"
        /// Every key the service reads.
        public static let all: Set<String> = [type, data, file, url, name, title]
    }

    /// The option keys.
    public enum OptionKey {
        /// `target` (s): a target id (`app.desktop:action`, `builtin:…`), skipping the sheet.
        public static let target = "target"
        /// `ask` (b): show the sheet even when a choice is remembered or routed.
        public static let ask = "ask"
        /// `activation-token` (s): handed to the sheet and the target.
        public static let activationToken = "activation-token"
        /// `title` (s): what is shared, for the sheet.
        public static let title = "title"
        /// `timeout` (u): seconds to wait for the target's answer (default 300).
        public static let timeout = "timeout"
        /// `delivery` (b): for a device, the `Response` waits until the engine reports the
        /// transfer's end (its `delivery` result), instead of coming once the engine took it.
        public static let delivery = "delivery"
        /// `parent-window` (s): the caller's window the sheet is attached to (`x11:XID`,
        /// `wayland:HANDLE`), as for `OpenURLWithOptions`.
        public static let parentWindow = "parent-window"
        /// Every key the service reads.
        public static let all: Set<String> = [target, ask, activationToken, title, timeout, delivery, parentWindow]
    }

    /// The keys of a share's `Response` results.
    public enum ResultKey {
        /// `target` (s): the target the items went to.
        public static let target = "target"
        /// `device` (s): the device id, when the share went to a nearby device.
        public static let device = "device"
        /// `engine` (s): the engine that took it (`kdeconnect`, `gsconnect`).
        public static let engine = "engine"
        /// `delivery` (s), a device share's: `handed-to-engine` (the engine took it, nothing more is
        /// known), `delivered` (the sending engine reported its transfer finished), `failed`
        /// (code 2), `unknown` (followed, not ended within `[Devices] Timeout`: code 2 `Timeout`).
        public static let delivery = "delivery"
    }

    /// The environment variable naming the pasteboard that holds a share's data, for a
    /// spawned target (`pasteboard` in `platform_data` for an activated one).
    public static let pasteboardVariable = "SCHEMEBRIDGE_SHARE_PASTEBOARD"
    /// The `platform_data` key naming the share's pasteboard.
    public static let pasteboardPlatformKey = "pasteboard"
    /// The most items one share may hold.
    public static let maximumItems = 1000
}

/// The options of `Share`, typed; unknown keys are ignored, a known key of the wrong type is
/// `InvalidArgs`.
public struct ShareOptions: Sendable, Equatable {
    public var target: String?
    public var ask = false
    public var activationToken: String?
    public var title: String?
    public var timeout: UInt32?
    /// Whether a device share's `Response` waits for the transfer's end.
    public var delivery = false
    /// The caller's window the sheet is attached to, as given (the service checks its form).
    public var parentWindow: String?

    public init(target: String? = nil, ask: Bool = false, activationToken: String? = nil, title: String? = nil, timeout: UInt32? = nil,
                delivery: Bool = false) {
        self.target = target
        self.ask = ask
        self.activationToken = activationToken
        self.title = title
        self.timeout = timeout
        self.delivery = delivery
    }

    /// Decodes `dict`. Empty strings count as absent; a token with control characters is dropped.
    public init(decoding dict: [String: DBusValue]) throws(DBusError) {
        typealias K = ShareContract.OptionKey
        target = try dict.contractText(K.target)
        title = try dict.contractText(K.title)
        activationToken = try dict.contractText(K.activationToken).flatMap { $0.utf8.contains(where: { $0 < 0x20 }) ? nil : $0 }
        ask = try dict.contractBool(K.ask) ?? false
        timeout = try dict.contractTimeout(K.timeout)
        delivery = try dict.contractBool(K.delivery) ?? false
        parentWindow = try dict.contractText(K.parentWindow)
    }

    /// The `a{sv}` form (only what is set).
    public var dictionary: [String: DBusValue] {
        typealias K = ShareContract.OptionKey
        var d: [String: DBusValue] = [:]
        if let target { d[K.target] = .string(target) }
        if ask { d[K.ask] = .boolean(true) }
        if let activationToken { d[K.activationToken] = .string(activationToken) }
        if let title { d[K.title] = .string(title) }
        if let timeout { d[K.timeout] = .uint32(timeout) }
        if delivery { d[K.delivery] = .boolean(true) }
        if let parentWindow { d[K.parentWindow] = .string(parentWindow) }
        return d
    }
}

extension ContractCall where Result == ObjectPath {
    /// `Share1.Share(aa{sv} items, a{sv} options) → o`: each item a dictionary of ``ShareContract/ItemKey``s.
    public static func share(_ items: [[String: DBusValue]], options: ShareOptions) -> Self {
        .single(ContractSignature.share, [.array(element: .dictionary(key: .string, value: .variant), items.map { .vardict($0) }),
                                          .vardict(options.dictionary)]) { v in
            if case .objectPath(let p) = v { return p }
            return nil
        }
    }
}

extension ContractCall where Result == [[String]] {
    /// `Share1.ShareTargets(as types) → a(ssss)`: each target's id, name, icon and kind.
    public static func shareTargets(types: [String]) -> Self {
        .single(ContractSignature.shareTargets, [.strings(types)]) { v in
            v.arrayElements?.compactMap { row -> [String]? in
                guard case .structure(let fields) = row else { return nil }
                return fields.map { $0.string ?? "" }
            }
        }
    }
}
