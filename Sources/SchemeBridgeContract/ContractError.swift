import DBus

/// The contract's own errors: `<the contract's interface>.Error.<rawValue>` (``Contract/errorPrefix``).
/// Make one with a message (`ContractError.noHandler("…")` is a ``DBusError``), and match one
/// in a `catch` or a `switch` (`catch ContractError.noHandler { … }`).
///
/// A struct of constants rather than an enum: Swift reads `catch SomeEnum.member` as an enum
/// case pattern and never asks `~=`, so an enum could not be matched against a thrown error.
public struct ContractError: Hashable, Sendable, CustomStringConvertible {
    /// The last component of the name, e.g. `NoHandler`.
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The URL is malformed.
    public static let invalidURL = ContractError("InvalidURL")
    /// No eligible application handles the scheme.
    public static let noHandler = ContractError("NoHandler")
    /// The handler could not be started (or its D-Bus `Open` failed).
    public static let launchFailed = ContractError("LaunchFailed")
    /// The handler does not accept URLs from this caller.
    public static let accessDenied = ContractError("AccessDenied")
    /// A reserved scheme that the entry cannot take over.
    public static let reservedScheme = ContractError("ReservedScheme")
    /// The handler named is not an eligible handler of the scheme.
    public static let invalidHandler = ContractError("InvalidHandler")
    /// Too many launches: slow down.
    public static let rateLimited = ContractError("RateLimited")

    /// A reply token that is unknown or already used (version 2).
    public static let noSuchRequest = ContractError("NoSuchRequest")
    /// A reply from a process that is not the launched handler (version 2).
    public static let notTheHandler = ContractError("NotTheHandler")
    /// An x-callback URL whose scheme the caller's own entry does not declare (version 2).
    public static let callbackNotOwned = ContractError("CallbackNotOwned")
    /// No pasteboard of that name or path that the caller may see (never a hint that one exists).
    public static let noSuchPasteboard = ContractError("NoSuchPasteboard")
    /// The caller's pasteboards would exceed its count or byte quota (or the disk is full).
    public static let quotaExceeded = ContractError("QuotaExceeded")
    /// The pasteboard item has no data of that type (or there is no such item).
    public static let noSuchType = ContractError("NoSuchType")
    /// `FindPasteboard(name)` finds pasteboards of two owners that the caller may read, and none
    /// it was launched for: it must use an object path (version 2, hardening of issue 21).
    public static let ambiguousPasteboard = ContractError("AmbiguousPasteboard")
    /// The user cancelled the chooser (`ask`), or it gave no answer in time: nothing was opened.
    public static let cancelled = ContractError("Cancelled")
    /// `ask` was given, but no chooser is configured, on the bus, or usable (no display, no
    /// zenity or kdialog for the shipped one).
    public static let noChooser = ContractError("NoChooser")
    /// No share target (or not the one named) accepts every item shared (version 3).
    public static let noTarget = ContractError("NoTarget")
    /// `OpenURLWithOptions` with `universal-links-only`: no app holds the link (neither
    /// `verified` nor `selected`); nothing was opened (version 4, app links).
    public static let notAppLink = ContractError("NotAppLink")

    /// Every error of the contract.
    public static let allCases: [ContractError] = [.invalidURL, .noHandler, .launchFailed, .accessDenied, .reservedScheme, .invalidHandler,
                                                   .rateLimited, .noSuchRequest, .notTheHandler, .callbackNotOwned,
                                                   .noSuchPasteboard, .quotaExceeded, .noSuchType, .cancelled, .noChooser,
                                                   .ambiguousPasteboard, .noTarget, .notAppLink]

    /// The full D-Bus error name.
    public var name: ErrorName { try! ErrorName(Contract.errorPrefix + rawValue) }

    public var description: String { name.rawValue }

    /// This error with `message`.
    public func callAsFunction(_ message: String) -> DBusError { DBusError(name, message) }

    /// The contract error `name` stands for, if any.
    public init?(_ name: ErrorName) {
        guard name.rawValue.hasPrefix(Contract.errorPrefix),
              let known = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = known
    }
}

/// Matches an error by its contract name: `catch ContractError.noHandler { … }`.
public func ~= (pattern: ContractError, error: any Error) -> Bool {
    pattern.name ~= error
}

/// Matches a ``DBusError`` by its contract name (typed `throws(DBusError)` code and `switch`).
public func ~= (pattern: ContractError, error: DBusError) -> Bool { error.name == pattern.name }
