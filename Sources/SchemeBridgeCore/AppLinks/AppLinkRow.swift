/// One (app, declared host pattern) with its state for the pattern's host: a row of the
/// service's `AppLinks()` and of `schemebridge links list` (issue 41).
public struct AppLinkRow: Sendable, Equatable {
    /// The desktop id.
    public var app: DesktopID
    /// The pattern as declared (normalised).
    public var pattern: AppLinkHostPattern
    /// `selected` when the user chose the app for the pattern's host; `verified` when the entry
    /// is trusted and the host's file (or Flathub's data) endorses it; else `none`.
    public var state: AppLinkState
    /// The entry is one the user's programs cannot write (``AppLinkEntry/trusted``).
    public var trusted: Bool
    /// The declared path rules.
    public var paths: [AppLinkPathRule]
    /// The record of the host the pattern is verified at (nil when never fetched).
    public var record: AppLinkRecord?

    /// Where the pattern is verified.
    public var host: String { pattern.verificationHost }
}

extension AppLinks {
    /// Every (app, declared host pattern), apps by desktop id, patterns in file order.
    public func rows() -> [AppLinkRow] {
        let selections = selections()
        return registry.appLinkEntries().flatMap { e in
            e.declaration.hosts.map { pattern in
                let state: AppLinkState
                if selections[pattern.host] == e.id { state = .selected }
                else if e.trusted, endorses(e, pattern) { state = .verified }
                else { state = .none }
                return AppLinkRow(app: e.id, pattern: pattern, state: state, trusted: e.trusted, paths: e.declaration.paths,
                                  record: record(pattern.verificationHost))
            }
        }
    }
}
