/// What a decision names and a chooser offers: an app (a handler or a pick's provider, by its
/// ``DesktopID``), a share target (``ShareTargetID``), or the pick sheet's "Files…" (``files``).
/// Remembered choices, `[Routes]` and the dialogs carry it as its ``text``.
public struct ChooserTargetID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The id as text: a desktop file name, a share target id, or "Files…"'s id.
    public let text: String

    /// The id `text` as a caller, a chooser or a file gave it (not checked).
    public init(_ text: String) { self.text = text }
    public init(stringLiteral value: String) { self.init(value) }
    /// An app's.
    public init(_ id: DesktopID) { text = id.fileName }
    /// A share target's.
    public init(_ target: ShareTargetID) { text = target.text }

    /// The app it names (a handler, a provider).
    public var desktopID: DesktopID { DesktopID(fileName: text) }
    /// The share target it names, when it is one.
    public var shareTarget: ShareTargetID? { ShareTargetID(text) }
    /// Whether a chooser may be shown it: an id that starts with `-` is refused (a chooser
    /// program that passes ids as arguments would take it as an option).
    public var isOfferable: Bool { !text.hasPrefix("-") && !text.isEmpty }

    public var description: String { text }

    /// The pick sheet's "Files…": a file chooser instead of a provider.
    public static let files: ChooserTargetID = "io.github.schemebridge.Files.desktop"
}
