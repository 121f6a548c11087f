/// Why a request was refused or failed: the one failure type of Core. Its ``kind`` carries the
/// D-Bus error name the contract gives it (``Kind/rawValue``), so the daemon maps a failure to
/// its error in one line.
///
/// ``OpenFailure`` (opening URLs and documents) and ``PasteboardError`` (pasteboards) are this
/// type under the names code used before.
public struct ServiceFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds. The raw value is the error's name: the last component of a contract error
    /// (`NoHandler` for `io.github.schemebridge.SchemeBridge1.Error.NoHandler`), or a standard
    /// D-Bus error's full name (`org.freedesktop.DBus.Error.InvalidArgs`).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case invalidURL = "InvalidURL"
        case noHandler = "NoHandler"
        case invalidHandler = "InvalidHandler"
        case launchFailed = "LaunchFailed"
        /// The handler does not accept this caller; on a pasteboard, the caller may read but not do this.
        case accessDenied = "AccessDenied"
        case reservedScheme = "ReservedScheme"
        case rateLimited = "RateLimited"
        /// An x-callback URL whose scheme the caller's own entry does not declare.
        case callbackNotOwned = "CallbackNotOwned"
        /// Over a quota (an Inbox's or pasteboard owner's count or bytes), or out of memory or disk.
        case quotaExceeded = "QuotaExceeded"
        /// The user cancelled the chooser (or it gave no answer in time).
        case cancelled = "Cancelled"
        /// `ask` without any chooser to show.
        case noChooser = "NoChooser"
        /// An x-callback URL handed to a request's handler, opened by someone else; a reply
        /// from a process that is not the handler.
        case notTheHandler = "NotTheHandler"
        /// No share target (or not the one named) accepts every item shared.
        case noTarget = "NoTarget"
        /// A reply token that is unknown or already used.
        case noSuchRequest = "NoSuchRequest"
        /// No pasteboard the caller may see (never a hint that one exists).
        case noSuchPasteboard = "NoSuchPasteboard"
        /// A name that finds pasteboards of two owners the caller may read: it must use a path.
        case ambiguous = "AmbiguousPasteboard"
        /// The item has no data of that type.
        case noSuchType = "NoSuchType"
        /// `universal-links-only`: no app holds the link (verified or selected); nothing opened.
        case notAppLink = "NotAppLink"
        /// A wrong argument.
        case invalidArgument = "org.freedesktop.DBus.Error.InvalidArgs"
        /// More than a method returns.
        case limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        /// Anything else.
        case failed = "org.freedesktop.DBus.Error.Failed"

        /// Whether the name is the contract's own (to be put after its error prefix); false for
        /// the standard D-Bus errors, whose raw value is the full name.
        public var isContractError: Bool { !rawValue.utf8.contains(UInt8(ascii: ".")) }
    }

    public let kind: Kind
    /// A message a person can act on.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// A failure opening a URL or a document (``ServiceFailure``).
public typealias OpenFailure = ServiceFailure
/// A failure of a pasteboard call (``ServiceFailure``).
public typealias PasteboardError = ServiceFailure
