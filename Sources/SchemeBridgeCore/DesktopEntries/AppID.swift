/// An application id as Flatpak and D-Bus use it: reverse-DNS (`org.example.App`), the
/// well-known bus name of a `DBusActivatable` app, the `X-Flatpak=` id of an exported entry, the
/// app the document portal grants a document to. Checked once, when made (``init(_:)``): a value
/// of this type is always valid, so nothing that takes one checks it again.
///
/// The rule (``isValid(_:)``) is the D-Bus specification's for a well-known bus name, which is
/// also Flatpak's for an app id: at most 255 bytes, two or more non-empty elements separated by
/// `.`, each of `A-Z a-z 0-9 _ -` and not starting with a digit (so never a unique name `:1.42`).
/// The object path made from such a name (``objectPath``: `.` → `/`, `-` → `_`) is then a valid
/// object path too.
public struct AppID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The id (`org.example.App`).
    public let text: String

    /// The app id `text`, when ``isValid(_:)`` accepts it; nil otherwise.
    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        self.text = text
    }

    /// The D-Bus well-known name of the app (the id itself).
    public var busName: String { text }
    /// The object path of its `org.freedesktop.Application`: `/` + the id with `.` → `/` and
    /// `-` → `_` (Desktop Entry spec, "D-Bus Activation").
    public var objectPath: String { "/" + String(text.map { $0 == "." ? "/" : ($0 == "-" ? "_" : $0) }) }
    /// Its desktop file ID (`org.example.App.desktop`).
    public var desktopID: DesktopID { DesktopID(fileName: text + ".desktop") }

    public var description: String { text }
    public static func < (a: AppID, b: AppID) -> Bool { a.text < b.text }

    /// Whether `text` is an app id (see the type's documentation): the one place the rule is.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 255 else { return false }
        var elements = 0
        var elementLength = 0
        for b in utf8 {
            if b == UInt8(ascii: ".") {
                guard elementLength > 0 else { return false }
                elements += 1
                elementLength = 0
                continue
            }
            let letter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            let digit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
            guard letter || digit || b == UInt8(ascii: "_") || b == UInt8(ascii: "-"), !(digit && elementLength == 0) else { return false }
            elementLength += 1
        }
        return elementLength > 0 && elements >= 1
    }
}
