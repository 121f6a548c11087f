/// An application offered in a chooser: its desktop id, its name and its icon as the entry
/// gives them.
public struct ChooserCandidate: Sendable, Equatable {
    public var desktopID: String
    /// `Name=` (localized), else the desktop id.
    public var name: String
    /// `Icon=` (a theme name or an absolute path), `""` when none.
    public var icon: String

    public init(desktopID: String, name: String, icon: String) {
        self.desktopID = desktopID
        self.name = name
        self.icon = icon
    }

    /// The candidate for `entry`.
    public init(_ entry: DesktopEntry) {
        self.init(desktopID: entry.idText, name: entry.name ?? entry.idText, icon: entry.icon ?? "")
    }

    /// Whether a chooser may be shown this candidate: a desktop id that starts with `-` is
    /// refused (a chooser program that passes ids as arguments would take it as an option).
    public var isOfferable: Bool { !desktopID.hasPrefix("-") && !desktopID.isEmpty }

    /// The candidates a chooser is shown: those ``isOfferable``, in order.
    public static func offerable(_ candidates: [ChooserCandidate]) -> [ChooserCandidate] {
        candidates.filter(\.isOfferable)
    }
}

/// What a chooser answered.
public enum ChooserAnswer: Sendable, Equatable {
    /// The user picked `desktopID`; `always`: remember it for this caller; `activationToken`: a
    /// fresh token the chooser obtained for the launch when the user chose (the shipped dialog
    /// does; ``SettledHandler/launchToken(callerToken:)`` says which token the handler gets).
    case picked(String, always: Bool, activationToken: String? = nil)
    /// Nothing was picked (cancelled, closed, timed out); `reason` says which, for a person.
    case cancelled(reason: String)
    /// The dialog could not be shown or failed: an error for the caller (`NoChooser`), never a
    /// cancel, so nothing is silently left unopened; `reason` says what happened.
    case failed(reason: String)
}
