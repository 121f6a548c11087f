/// The app a portal frontend names in a call's `app_id` (`ChooseApplication`, `OpenFile`):
/// `""` for a host app, else the sandboxed app's id as the frontend spells it (a Flatpak app id,
/// a Snap's name). What it means is read here, once: a host app, or a sandboxed app that is a
/// caller identity (``callerID``: `org.example.App` and `org.example.App.desktop` are one), or a
/// sandboxed app named in no form SchemeBridge knows. The text is kept as sent (messages quote it).
public struct PortalAppName: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The `app_id` as the frontend sent it.
    public let text: String

    /// The name the frontend sent (not checked: see ``callerID``).
    public init(_ text: String) { self.text = text }
    /// ``init(_:)`` of a literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// The frontend named no app (`""`): the caller is a host app, not sandboxed.
    public var isHost: Bool { text.isEmpty }
    /// The caller identity the name is (``CallerID/init(_:)``); nil for a host app or a name
    /// that is none.
    public var callerID: CallerID? { CallerID(text) }

    public var description: String { text }
}
