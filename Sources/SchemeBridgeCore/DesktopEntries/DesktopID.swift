/// A desktop file ID (Desktop Entry spec 1.5, "Desktop File ID") and the names derived from it:
/// the app id (`org.example.App`), the desktop file name (`org.example.App.desktop`), the D-Bus
/// well-known name of a `DBusActivatable` application (the app id) and the object path of its
/// `org.freedesktop.Application` (`/org/example/App`). Every conversion between them is here.
///
/// The ID of `$dir/applications/foo/bar.desktop` is `foo-bar.desktop`: the path relative to the
/// applications directory with `/` replaced by `-`.
public struct DesktopID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The desktop file name: the app id with `.desktop` (`org.example.App.desktop`).
    public let fileName: String

    /// The ID for an app id or a desktop file name, as callers, systemd scopes and config files
    /// give them: `org.example.App` and `org.example.App.desktop` are the same ID. Not validated
    /// (see ``init(validating:)``).
    public init(_ appIDOrFileName: String) {
        fileName = Self.fileName(appID: appIDOrFileName)
    }

    /// ``init(_:)`` of a literal (`"org.example.App.desktop"`).
    public init(stringLiteral value: String) { self.init(value) }

    /// The ID named exactly `fileName`, as a caller or a file gave it: nothing added, nothing
    /// checked (the rules that take an ID from a caller check ``isValid``, with their own errors).
    public init(fileName: String) { self.fileName = fileName }

    /// The ID for a desktop file name that ``isValid(_:)`` accepts; nil otherwise.
    public init?(validating fileName: String) {
        guard Self.isValid(fileName) else { return nil }
        self.fileName = fileName
    }

    /// The ID of a file at `relativePath` under an applications directory (`vendor/app.desktop` →
    /// `vendor-app.desktop`).
    public init(relativePath: String) { fileName = Self.make(relativePath: relativePath) }

    /// The app id: the file name without `.desktop` (`org.example.App`).
    public var appID: String { Self.appID(fileName) }
    /// The D-Bus well-known name of a `DBusActivatable` application: the app id.
    public var busName: String { appID }
    /// The object path of a `DBusActivatable` application's `org.freedesktop.Application`: `/` + bus
    /// name with `.` → `/` and `-` → `_` (Desktop Entry spec, "D-Bus Activation").
    public var objectPath: String { "/" + String(busName.map { $0 == "." ? "/" : ($0 == "-" ? "_" : $0) }) }
    /// The app id as an ``AppID``, when it is a valid one (``AppID/isValid(_:)``); nil otherwise.
    public var validAppID: AppID? { AppID(appID) }
    /// Whether ``busName`` is a valid D-Bus well-known name (and so ``objectPath`` a valid object
    /// path): what a `DBusActivatable` entry needs, checked once when the entry is read.
    public var makesBusName: Bool { AppID.isValid(busName) }
    /// Whether the file name is one SchemeBridge accepts from a caller (``isValid(_:)``).
    public var isValid: Bool { Self.isValid(fileName) }

    public var description: String { fileName }
    public static func < (a: DesktopID, b: DesktopID) -> Bool { a.fileName < b.fileName }

    /// The ID for a path relative to an applications directory (`vendor/app.desktop` →
    /// `vendor-app.desktop`).
    public static func make(relativePath: String) -> String {
        guard relativePath.utf8.contains(UInt8(ascii: "/")) else { return relativePath }
        return String(decoding: relativePath.utf8.map { $0 == UInt8(ascii: "/") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }

    /// Whether `id` is a well-formed desktop ID as SchemeBridge accepts one from a caller or a
    /// `mimeapps.list`: ends in `.desktop` with a non-empty stem, at most 255 bytes, and contains
    /// no `/`, `;`, `=`, NUL or other control characters.
    public static func isValid(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard utf8.count > suffix.utf8.count, utf8.count <= 255, id.hasSuffix(suffix) else { return false }
        for b in utf8 {
            if b < 0x20 || b == 0x7F || b == UInt8(ascii: "/") || b == UInt8(ascii: ";") || b == UInt8(ascii: "=") {
                return false
            }
        }
        return true
    }

    /// The app id of a desktop file name or app id: without `.desktop` when it ends so.
    public static func appID(_ id: String) -> String {
        id.hasSuffix(suffix) ? String(id.dropLast(suffix.count)) : id
    }

    /// The desktop file name of an app id or desktop file name: with `.desktop` added when missing.
    public static func fileName(appID id: String) -> String {
        id.hasSuffix(suffix) ? id : id + suffix
    }

    /// The D-Bus well-known name of a `DBusActivatable` application: the ID without `.desktop`.
    public static func busName(_ id: String) -> String { DesktopID(id).busName }

    /// The object path of a `DBusActivatable` application (see ``objectPath``).
    public static func objectPath(_ id: String) -> String { DesktopID(id).objectPath }

    private static let suffix = ".desktop"
}
