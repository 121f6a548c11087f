/// Something a share can go to, as ``Broker/shareTargets(for:caller:tools:)`` lists it and a
/// share sheet shows it.
public struct ShareTarget: Sendable, Equatable {
    /// What kind of target it is (the sheet's fourth column).
    public enum Kind: String, Sendable, Equatable {
        /// An app's declared share action.
        case app
        /// A nearby device (through KDE Connect or GSConnect).
        case device
        /// One of SchemeBridge's own activities ("Open in <app>", "Copy", "Save to…").
        case builtin
    }

    /// The target's id (``ShareTargetID``).
    public let id: String
    /// What a person sees.
    public let name: String
    /// An icon name or absolute path, "" when none.
    public let icon: String
    public let kind: Kind

    public init(id: String, name: String, icon: String, kind: Kind) {
        self.id = id
        self.name = name
        self.icon = icon
        self.kind = kind
    }

    /// The target as a chooser candidate (its id stands where a desktop id would).
    public var candidate: ChooserCandidate { ChooserCandidate(id: ChooserTargetID(id), name: name, icon: icon) }
}

/// The ids of share targets: `<desktop id>:<action>` for an app's declared action, the
/// built-in activities `builtin:copy`, `builtin:save` and `builtin:open-in:<desktop id>`, and a
/// nearby device's id as its engine names it (``DeviceID``: no `:`, so never an action's).
public enum ShareTargetID: Sendable, Equatable {
    /// `<desktop id>:<action>`.
    case action(desktopID: DesktopID, action: String)
    /// "Open in <app>": the files through the document path, as `OpenFile` hands them.
    case openIn(desktopID: DesktopID)
    /// "Copy": onto the desktop's clipboard.
    case copy
    /// "Save to…": a file chooser, then the bytes written there.
    case save
    /// "Send to <device>": a nearby device, by its engine's id.
    case device(String)

    /// The prefix of the built-in activities' ids.
    public static let builtinPrefix = "builtin:"
    static let openInPrefix = "builtin:open-in:"

    /// Whether `text` names a device (a share to it is decided and sent on the loop thread).
    public static func namesDevice(_ text: String?) -> Bool {
        if case .device? = text.flatMap(ShareTargetID.init) { true } else { false }
    }

    /// Whether it names a device.
    public var isDevice: Bool { if case .device = self { true } else { false } }

    /// The id parsed; nil when `text` names no target.
    public init?(_ text: String) {
        if text.hasPrefix(Self.builtinPrefix) {
            switch text {
            case "builtin:copy": self = .copy
            case "builtin:save": self = .save
            default:
                guard text.hasPrefix(Self.openInPrefix), case let id = String(text.dropFirst(Self.openInPrefix.count)), DesktopID.isValid(id) else { return nil }
                self = .openIn(desktopID: DesktopID(fileName: id))
            }
            return
        }
        // A device's id has no `:` (what follows is for ids that have one).
        if DeviceID.isValid(text) {
            self = .device(text)
            return
        }
        // The last `:` by its byte: both parts are checked byte by byte, so a `:` that a combining
        // mark follows (not a `:` character of its own) makes an invalid action either way.
        guard let colon = text.utf8.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let id = String(Substring(text.utf8[..<colon])), action = String(Substring(text.utf8[text.utf8.index(after: colon)...]))
        guard DesktopID.isValid(id), ShareAction.isValidActionName(action) else { return nil }
        self = .action(desktopID: DesktopID(fileName: id), action: action)
    }

    /// The id as text.
    public var text: String {
        switch self {
        case .action(let id, let action): return id.fileName + ":" + action
        case .openIn(let id): return Self.openInPrefix + id.fileName
        case .copy: return "builtin:copy"
        case .save: return "builtin:save"
        case .device(let id): return id
        }
    }

    /// Whether `text` is a share target id.
    public static func isValid(_ text: String) -> Bool { ShareTargetID(text) != nil }

    /// What remembered share choices and `[Routes]` lines for shares are keyed by: one subject
    /// for every share (a remembered target counts only when it accepts the items shared).
    public static let choiceSubject = "x-schemebridge/share"
}

/// What the service can do for the built-in activities (the daemon looks; the rules decide).
public struct ShareTools: Sendable, Equatable {
    /// A clipboard tool for the session (`wl-copy` under Wayland, `xclip` under X11).
    public var copy: Bool
    /// A file chooser for "Save to…".
    public var save: Bool
    /// The nearby devices that can receive now (``NearbyDevice/isShareTarget``).
    public var devices: [NearbyDevice]

    public init(copy: Bool, save: Bool, devices: [NearbyDevice] = []) {
        self.copy = copy
        self.save = save
        self.devices = devices
    }
}
