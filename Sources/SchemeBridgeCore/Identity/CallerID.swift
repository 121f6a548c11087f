/// Who a caller is, as the service identified it (``CallerIdentifier``): the identity remembered
/// choices, `[Routes]` lines, policy lists, quotas and messages name it by. One of
///
/// - a Flatpak app (``flatpak(_:)``): its app id, `org.example.App`;
/// - a snap (``snap(_:)``): `snap.` and its name, `snap.firefox` (as its systemd scope begins);
/// - an installed application (``desktop(_:)``): its desktop ID's app id, `org.example.App`
///   (a systemd `app-…` scope's id, the app behind our CLI, the one entry allowed to name an
///   executable);
/// - an unsandboxed program no entry names (``executable(_:)``): its absolute path, `/usr/bin/tool`.
///
/// It is printed one way (``text``, also ``description``), which is how config files, the
/// choices file and D-Bus replies spell it, and read from text only where text comes in
/// (``init(_:)``: a bus argument, a config or choices line, the CLI). A Flatpak app and the
/// installed entry of the same id are the same caller, and a desktop ID is the same with or
/// without `.desktop` (``DesktopID``): two values are equal when their ``text`` is.
/// Like every caller identity it is a claim, not a credential (docs/SECURITY.md).
public struct CallerID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identity as config files, the choices file and replies spell it (see the type).
    public let text: String

    private init(checked text: String) { self.text = text }

    /// A Flatpak app, by its app id.
    public static func flatpak(_ app: AppID) -> CallerID { CallerID(checked: app.text) }

    /// An installed application, by its desktop ID (printed without `.desktop`); nil for an ID
    /// ``DesktopID/isValid`` refuses.
    public static func desktop(_ id: DesktopID) -> CallerID? {
        id.isValid ? CallerID(checked: id.appID) : nil
    }

    /// A snap, by its name (snapd's rule: 1 to 40 of `a-z 0-9 -`, a letter among them, no `-`
    /// first, last or twice in a row); nil for another name.
    public static func snap(_ name: String) -> CallerID? {
        let u = Array(name.utf8)
        guard (1...40).contains(u.count), u.first != UInt8(ascii: "-"), u.last != UInt8(ascii: "-"),
              u.contains(where: { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else { return nil }
        for (i, b) in u.enumerated() {
            let ok = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "-")
            guard ok, !(b == UInt8(ascii: "-") && i > 0 && u[i - 1] == b) else { return nil }
        }
        return CallerID(checked: snapPrefix + name)
    }

    /// An unsandboxed program, by its executable's absolute path; nil for a path that is not
    /// absolute, is longer than `PATH_MAX` (4,096 bytes), or holds a control character.
    public static func executable(_ path: String) -> CallerID? {
        guard path.hasPrefix("/"), path.utf8.count <= 4096, !Self.hasControl(path) else { return nil }
        return CallerID(checked: path)
    }

    /// The identity `text` names, as config files, the choices file, the CLI and callers spell
    /// it: an absolute path is an executable; `snap.NAME` a snap; anything else an app id or a
    /// desktop file name (`org.example.App` and `org.example.App.desktop` are the same). Nil for
    /// text that names none (empty, a relative path, a control character, or what
    /// ``DesktopID/isValid`` refuses).
    public init?(_ text: String) {
        if text.hasPrefix("/") {
            guard let id = Self.executable(text) else { return nil }
            self = id
        } else if text.hasPrefix(Self.snapPrefix), let id = Self.snap(String(text.dropFirst(Self.snapPrefix.count))) {
            self = id
        } else {
            guard let id = Self.desktop(DesktopID(text)) else { return nil }
            self = id
        }
    }

    /// ``init(_:)`` of a literal in code (`"org.example.App"`); a literal that names no
    /// identity is kept as written (as ``DesktopID``'s literal is: code, not input).
    public init(stringLiteral value: String) { self = CallerID(value) ?? CallerID(checked: value) }

    /// ``init(_:)`` for text a caller sent (a bus argument): `InvalidArgs` when it names no
    /// identity.
    public init(checking text: String) throws(ServiceFailure) {
        guard let id = CallerID(text) else {
            throw ServiceFailure(.invalidArgument, "'\(text.prefix(80))' is not a caller identity (an app id, snap.NAME or an absolute path)")
        }
        self = id
    }

    /// Which kind of caller the text names (``init(_:)``'s reading of it).
    public enum Kind: Sendable, Equatable {
        /// An app id: a Flatpak app or an installed application (the same caller).
        case app
        /// A snap.
        case snap
        /// An executable's path.
        case executable
    }

    /// Which kind it is.
    public var kind: Kind {
        if text.hasPrefix("/") { return .executable }
        if text.hasPrefix(Self.snapPrefix), Self.snap(String(text.dropFirst(Self.snapPrefix.count))) != nil { return .snap }
        return .app
    }

    /// Its desktop ID, for an app (`org.example.App.desktop`); nil for a snap or an executable.
    public var desktopID: DesktopID? { kind == .app ? DesktopID(text) : nil }

    public var description: String { text }
    public static func < (a: CallerID, b: CallerID) -> Bool { a.text < b.text }

    /// Encoded as its ``text``; decoding refuses text ``init(_:)`` refuses.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = CallerID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a caller identity: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }

    private static let snapPrefix = "snap."

    private static func hasControl(_ s: String) -> Bool { s.utf8.contains { $0 < 0x20 || $0 == 0x7F } }
}
