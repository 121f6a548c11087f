/// Whom a grant names: one app id (`org.example.Viewer`), or every id under a prefix
/// (`org.example.*`). App ids are what caller identification finds (desktop ids without
/// `.desktop`, Flatpak ids, executable paths); a bare `*` (everyone) is refused. A desktop id
/// as `handlers` prints it (`org.example.Viewer.desktop`) names its app: the suffix is dropped
/// (kept, it would match no app id), for the CLI and D-Bus `Grant`/`Revoke` alike.
public struct AppIDPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as given.
    public let text: String

    /// Checks `text`: 1 to 255 bytes of letters, digits and `.-_+/@`, optionally ending in `*`
    /// after a `.`, `-` or `/` (and not just `*`); a trailing `.desktop` after an id is dropped.
    public init(_ given: String) throws(PasteboardError) {
        let suffix = ".desktop"
        let text = given.hasSuffix(suffix) && given.utf8.count > suffix.utf8.count ? String(given.dropLast(suffix.count)) : given
        let bytes = Array(text.utf8)
        func refuse(_ why: String) -> PasteboardError {
            PasteboardError(.invalidArgument, "'\(given.prefix(80))' is not an app id or pattern: \(why)")
        }
        guard !bytes.isEmpty, bytes.count <= 255 else { throw refuse("it must be 1 to 255 bytes") }
        for (i, b) in bytes.enumerated() {
            let ordinary = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "._-+/@".utf8.contains(b)
            if ordinary { continue }
            guard b == UInt8(ascii: "*"), i == bytes.count - 1 else { throw refuse("only letters, digits and . _ - + / @ are allowed, with * at the end") }
            guard i >= 2, ".-/".utf8.contains(bytes[i - 1]) else { throw refuse("a * must follow a prefix ending in '.', '-' or '/' (a grant to everyone is not possible)") }
        }
        self.text = text
    }

    /// Whether caller `id` is named by this pattern: by its ``CallerID/text`` (an app's id
    /// without `.desktop`, a snap's `snap.NAME`, an executable's path).
    public func matches(_ id: CallerID) -> Bool {
        guard text.hasSuffix("*") else { return id.text == text }
        return id.text.hasPrefix(text.dropLast())
    }

    public var description: String { text }
}
