import Glibc

/// Why a pasteboard operation failed, named as the contract's errors.
public struct PasteboardError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No pasteboard the caller may see (never a hint that one exists).
        case noSuchPasteboard
        /// A name that finds pasteboards of two owners the caller may read: it must use a path.
        case ambiguous
        /// The caller may read it but not do this (only the owner may write, grant or revoke).
        case accessDenied
        /// Over the owner's count or byte quota, or out of memory or disk.
        case quotaExceeded
        /// The item has no data of that type.
        case noSuchType
        /// A wrong argument (D-Bus `InvalidArgs`).
        case invalidArgument
        /// More than a method returns (D-Bus `LimitsExceeded`).
        case limitsExceeded
        /// Anything else (D-Bus `Failed`).
        case failed
    }

    public let kind: Kind
    /// A message a person can act on.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// A system call's failure: a full disk or no memory is `QuotaExceeded`, the rest `Failed`.
    static func failure(errno e: Int32, _ what: String) -> PasteboardError {
        let reason = String(cString: strerror(e))
        switch e {
        case ENOSPC, EDQUOT: return PasteboardError(.quotaExceeded, "\(what): the disk is full (\(reason)); nothing was changed")
        case ENOMEM: return PasteboardError(.quotaExceeded, "\(what): out of memory (\(reason)); nothing was changed")
        default: return PasteboardError(.failed, "\(what): \(reason)")
        }
    }

    /// The one answer for a pasteboard the caller may not see, or that does not exist.
    public static let noSuchPasteboard = PasteboardError(.noSuchPasteboard, "no such pasteboard (it does not exist, expired, or was not shared with you)")
}
