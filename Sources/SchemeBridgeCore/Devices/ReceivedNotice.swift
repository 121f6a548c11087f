/// The desktop notification for one received transfer (``ReceivedTransfer``): who sent it (the
/// device's name, never the engine's id) and what (the files' names, the link, or "text"), with
/// what the user can do. Names come from the network: each is sanitised like a device name
/// (no control or bidirectional-override characters, bounded) and, for a server that reads
/// markup in the body, escaped.
public struct ReceivedNotice: Sendable, Equatable {
    /// The action keys (`org.freedesktop.Notifications` `actions`), with their labels in ``actions``.
    public enum Action: String, Sendable, CaseIterable {
        case open = "open"
        case showInFolder = "show-in-folder"
        case notFromThisDevice = "not-from-this-device"
        case dismiss = "dismiss"

        /// The button's label.
        public var label: String {
            switch self {
            case .open: "Open"
            case .showInFolder: "Show in folder"
            case .notFromThisDevice: "Not from this device"
            case .dismiss: "Dismiss"
            }
        }
    }

    /// How one item is shown.
    public enum Item: Sendable, Equatable {
        /// A file, by its name (the last part of its path).
        case file(String)
        /// Text that is one URL (shown shortened).
        case link(String)
        /// Other text.
        case text
    }

    /// The most items named in the body; the rest are counted ("and 3 more").
    public static let maximumNamed = 5
    /// The most characters of one shown name or link (as of a device's name).
    public static let maximumNameCharacters = DeviceName.maximumCharacters

    public var summary: String
    public var body: String
    /// The actions offered, in order.
    public var actions: [Action]

    /// The notice for `items` (the offered ones, in order) from the device named `deviceName`;
    /// `kept`: how many more arrived in the transfer past the cap (kept, not opened); `opened`:
    /// it was opened already (`OpenReceived=default`), so "Open" is not offered; `markup`: the
    /// server reads markup in the body (its `body-markup` capability).
    public init(deviceName: String, items: [Item], kept: Int, opened: Bool, markup: Bool) {
        let device = DeviceName.sanitized(deviceName)
        let files = items.filter { if case .file = $0 { return true } else { return false } }.count
        let what: String
        switch (items.count, items.first) {
        case (1, .link?): what = "a link"
        case (1, .text?): what = "text"
        case (1, _): what = "a file"
        case (let n, _) where files == n: what = "\(n) files"
        case (let n, _): what = "\(n) items"
        }
        summary = "\(device) sent \(what)" + (opened ? " (opened)" : "")
        var names = items.prefix(Self.maximumNamed).map { item -> String in
            switch item {
            case .file(let name): return Self.shown(name)
            case .link(let url): return Self.shown(url)
            case .text: return "text"
            }
        }
        if items.count > Self.maximumNamed { names.append("and \(items.count - Self.maximumNamed) more") }
        var lines = [names.joined(separator: ", ")]
        if kept > 0 { lines.append("\(kept) more kept in the download folder, not opened") }
        body = lines.joined(separator: "\n")
        if markup { body = Self.escaped(body) }
        actions = (opened ? [] : [.open]) + [.showInFolder, .notFromThisDevice, .dismiss]
    }

    /// The `actions` argument of `Notify`: key, label, key, label…
    public var actionList: [String] { actions.flatMap { [$0.rawValue, $0.label] } }

    /// `name` safe to show: sanitised as a device name is (at most ``maximumNameCharacters``).
    static func shown(_ name: String) -> String { DeviceName.sanitized(name) }

    /// `text` with `&`, `<` and `>` as entities (the notification spec's body markup).
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The last part of `path`.
    public static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
