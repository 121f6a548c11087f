import Glibc

/// Pasteboard failures (``PasteboardError`` is ``ServiceFailure``).
extension ServiceFailure {
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
