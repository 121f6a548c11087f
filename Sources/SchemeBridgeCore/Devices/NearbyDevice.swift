/// A device an engine (KDE Connect) knows: what the sheet and `ShareTargets` may show. The
/// name is the engine's, sanitised (``DeviceName``); the id is the engine's device id.
public struct NearbyDevice: Sendable, Equatable, Hashable {
    /// The engine's device id (``DeviceID``).
    public var id: String
    /// The display name, sanitised and bounded.
    public var name: String
    /// Whether the engine can reach it now.
    public var reachable: Bool
    /// Whether it is paired (trusted) with this computer.
    public var paired: Bool
    /// Whether its share plugin is enabled (and loaded).
    public var canReceive: Bool
    /// What kind of device the engine says it is (its icon in the sheet).
    public var kind: DeviceKind

    public init(id: String, name: String, reachable: Bool, paired: Bool, canReceive: Bool, kind: DeviceKind = .phone) {
        self.id = id
        self.name = DeviceName.sanitized(name)
        self.reachable = reachable
        self.paired = paired
        self.canReceive = canReceive
        self.kind = kind
    }

    /// A share target: paired, reachable, and its share plugin enabled.
    public var isShareTarget: Bool { reachable && paired && canReceive }

    /// "Send to <name>", what the sheet shows.
    public var sendTitle: String { "Send to \(name)" }

    /// The share targets among `devices`, by name then id (a stable order for the sheet).
    /// Inlinable: specialized where it is called (the engines' lists, on every share), not run
    /// through the generic sequence's witnesses.
    @inlinable
    public static func shareTargets(_ devices: some Sequence<NearbyDevice>) -> [NearbyDevice] {
        devices.filter { $0.isShareTarget }.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }
}

/// The kinds of device the engines report (KDE Connect's `type` property, GSConnect's `Type`:
/// `smartphone` or `phone`, `tablet`, `laptop`, `desktop`, `tv`), each with the icon the sheet shows
/// (freedesktop icon names, as the Adwaita theme has them). A value the engines do not use is a
/// phone, the kind most devices in reach are.
public enum DeviceKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case phone, tablet, laptop, desktop, tv

    /// The kind an engine's type names (case ignored; at most 32 bytes looked at).
    public init(engineType: String) {
        switch engineType.utf8.count <= 32 ? engineType.lowercased() : "" {
        case "tablet": self = .tablet
        case "laptop": self = .laptop
        case "desktop": self = .desktop
        case "tv": self = .tv
        default: self = .phone
        }
    }

    /// The icon name: `phone`, `tablet`, `computer-laptop` (a theme without it falls back to
    /// `computer`), `computer`, `tv`.
    public var icon: String {
        switch self {
        case .phone: "phone"
        case .tablet: "tablet"
        case .laptop: "computer-laptop"
        case .desktop: "computer"
        case .tv: "tv"
        }
    }
}

/// Device ids as KDE Connect uses them: they become an element of the device's object path
/// (`/modules/kdeconnect/devices/<id>`), so only `[A-Za-z0-9_]`, 1 to 128 characters, are
/// accepted; anything else is no device of ours (never spliced into a path).
public enum DeviceID {
    /// The most characters an id may have.
    public static let maximumLength = 128

    /// Whether `id` is a well-formed device id.
    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        // Over the string's own bytes where it has them (a native string: no iterator per byte).
        return bytes.withContiguousStorageIfAvailable { $0.allSatisfy(isIDByte) } ?? bytes.allSatisfy(isIDByte)
    }

    private static func isIDByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
    }
}

/// Device names come from the network (any device in reach announces one): a name is shown
/// only after control characters, bidirectional overrides and other invisible format
/// characters are dropped, white space is collapsed, and it is cut to
/// ``maximumCharacters`` characters (with "…"); an empty result is "Unnamed device".
public enum DeviceName {
    /// The most characters a shown name has.
    public static let maximumCharacters = 64
    /// The most bytes of a raw name looked at (a 1 MB name is not walked in full).
    public static let maximumInputBytes = 4096

    /// `raw`, safe to show in a sheet, a log line or a D-Bus reply.
    public static func sanitized(_ raw: String) -> String {
        let input = raw.utf8.count > maximumInputBytes ? String(decoding: raw.utf8.prefix(maximumInputBytes), as: UTF8.self) : raw
        var scalars = String.UnicodeScalarView()
        var lastWasSpace = true
        for s in input.unicodeScalars {
            if s.properties.generalCategory == .control || s.properties.generalCategory == .format
                || s.properties.generalCategory == .lineSeparator || s.properties.generalCategory == .paragraphSeparator
                || s.properties.generalCategory == .surrogate || s.properties.generalCategory == .privateUse
                || s.properties.generalCategory == .unassigned {
                if !lastWasSpace, s.properties.isWhitespace { scalars.append(" "); lastWasSpace = true }
                continue
            }
            if s.properties.isWhitespace {
                if !lastWasSpace { scalars.append(" ") }
                lastWasSpace = true
                continue
            }
            scalars.append(s)
            lastWasSpace = false
        }
        var name = String(scalars)
        while name.last == " " { name.removeLast() }
        if name.count > maximumCharacters {
            name = String(name.prefix(maximumCharacters - 1))
            while name.last == " " { name.removeLast() }
            name += "…"
        }
        return name.isEmpty ? "Unnamed device" : name
    }
}
