/// Who asks: a connection on the bus, as the service identified it. The one caller type of every
/// service (opening, documents, pasteboards, replies, choosers).
public struct Caller: Sendable, Equatable {
    /// The caller's unique bus name (`:1.42`).
    public var busName: String
    /// Its process id, when the bus told us.
    public var pid: UInt32?
    /// Who it is (a Flatpak, a snap, an installed entry or an executable path: ``CallerID``); nil when unidentified.
    public var id: CallerID?
    /// True when ``id`` is the app behind our CLI (``pid`` is still the CLI's).
    public var throughCLI: Bool
    /// The caller's process and its ancestors, nearest first (loop safety, pasteboard launch grants).
    public var lineage: [Int32]
    /// Whether it runs in a Flatpak sandbox (its process has a `/.flatpak-info`): such a caller
    /// learns and changes less (``SandboxedCallerRule``). Forging one only restricts the forger.
    public var sandboxed: Bool
    /// Whether unrelated programs share its identity (an interpreter, a shell, a terminal, no
    /// identity: ``SharedIdentityRule``).
    public var sharedIdentity: Bool

    public init(busName: String, pid: UInt32? = nil, id: CallerID? = nil, throughCLI: Bool = false, lineage: [Int32] = [],
                sandboxed: Bool = false, sharedIdentity: Bool = false) {
        self.busName = busName
        self.pid = pid
        self.id = id
        self.throughCLI = throughCLI
        self.lineage = lineage
        self.sandboxed = sandboxed
        self.sharedIdentity = sharedIdentity
    }

    /// Its identity as text (``CallerID/text``), where it leaves the service: replies, logs.
    public var appID: String? { id?.text }

    /// The identity remembered choices and `[Routes]` lines are looked up and kept under: its
    /// ``id``, unless unrelated programs share it (``sharedIdentity``) — then none, and nothing
    /// remembered decides for it.
    public var rememberingID: CallerID? { sharedIdentity ? nil : id }

    /// The key its launches are counted under: its identity, else the connection.
    public var rateKey: String { id?.text ?? busName }
    /// How it is named in messages.
    public var displayName: String { id?.text ?? "unidentified caller \(busName)" }
    /// The Flatpak app a sandboxed caller is, when its identity is a valid ``AppID`` (an invalid
    /// one names no app the service started); nil for a caller that is not sandboxed.
    public var sandboxAppID: AppID? { sandboxed ? id.flatMap { AppID($0.text) } : nil }
    /// Its ``DesktopID`` when it is an app (``CallerID/desktopID``).
    public var desktopID: DesktopID? { id?.desktopID }
}

