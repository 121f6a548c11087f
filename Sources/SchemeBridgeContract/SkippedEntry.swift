import DBus

/// One answer of `SkippedHandlersForScheme`: an application that declares the scheme but is not
/// one of its handlers (contract 3).
public struct SkippedEntry: Sendable, Equatable {
    /// The desktop id.
    public var desktopID: String
    /// The desktop file.
    public var path: String
    /// Why it is skipped, for people.
    public var reason: String

    public init(desktopID: String, path: String, reason: String) {
        self.desktopID = desktopID
        self.path = path
        self.reason = reason
    }

    /// Reads `a(sss)`; nil for another signature.
    public static func list(_ v: DBusValue) -> [SkippedEntry]? {
        RememberedChoice.list(v).map { $0.map { SkippedEntry(desktopID: $0.caller, path: $0.subject, reason: $0.desktopID) } }
    }
}

extension ContractCall where Result == [String: String] {
    /// `DisplayNames(as) → a{ss}`.
    public static func displayNames(_ desktopIDs: [String]) -> Self {
        .single(ContractSignature.displayNames, [.strings(desktopIDs)]) { v in
            v.stringDictionary.map { $0.compactMapValues(\.string) }
        }
    }
}

extension ContractCall where Result == [SkippedEntry] {
    /// `SkippedHandlersForScheme(s) → a(sss)`.
    public static func skippedHandlersForScheme(_ scheme: String) -> Self {
        .single(ContractSignature.skippedHandlersForScheme, [.string(scheme)], SkippedEntry.list)
    }
}
