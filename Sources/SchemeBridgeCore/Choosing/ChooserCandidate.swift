/// What a chooser offers — an application, a share target, "Files…" (``ChooserTargetID``) — with its
/// name and its icon as the entry gives them.
public struct ChooserCandidate: Sendable, Equatable {
    public var id: ChooserTargetID
    /// `Name=` (localized), else the desktop id.
    public var name: String
    /// `Icon=` (a theme name or an absolute path), `""` when none.
    public var icon: String

    public init(id: ChooserTargetID, name: String, icon: String) {
        self.id = id
        self.name = name
        self.icon = icon
    }

    /// The candidate for `entry`.
    public init(_ entry: DesktopEntry) {
        self.init(id: ChooserTargetID(entry.id), name: entry.name ?? entry.idText, icon: entry.icon ?? "")
    }

    /// Whether a chooser may be shown this candidate: a desktop id that starts with `-` is
    /// refused (a chooser program that passes ids as arguments would take it as an option).
    public var isOfferable: Bool { id.isOfferable }

    /// The candidates a chooser is shown: those ``isOfferable``, in order.
    public static func offerable(_ candidates: [ChooserCandidate]) -> [ChooserCandidate] {
        candidates.filter(\.isOfferable)
    }
}

/// What a chooser answered.
public enum ChooserAnswer: Sendable, Equatable {
    /// The user picked this; `always`: remember it for this caller; `activationToken`: a fresh
    /// token the chooser obtained for the launch when the user chose (the shipped dialog does;
    /// ``SettledHandler/launchToken(callerToken:)`` says which token the handler gets).
    case picked(ChooserTargetID, always: Bool, activationToken: String? = nil)
    /// Nothing was picked (cancelled, closed, timed out); `reason` says which, for a person.
    case cancelled(reason: String)
    /// The dialog could not be shown or failed: an error for the caller (`NoChooser`), never a
    /// cancel, so nothing is silently left unopened; `reason` says what happened.
    case failed(reason: String)
}
