/// The key a pasteboard's quota is counted under (``PasteboardLimits/quota(of:)``): its owner's
/// identity when a desktop entry, a launcher's scope, a snap or Flatpak names the owner; one key
/// shared by every owner known only by an executable's path (a hard link of an interpreter is a
/// new path, at no cost) or not at all.
public enum PasteboardQuotaKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Callers known only by an executable's path, or not at all, together (ordered first).
    case shared
    /// An app's own quota.
    case owner(CallerID)

    /// The key of pasteboards owned by `owner` (``Pasteboard/ownerApp``).
    public init(owner: CallerID?) {
        guard let owner, owner.kind != .executable else { self = .shared; return }
        self = .owner(owner)
    }

    public var description: String {
        switch self {
        case .shared: "(shared by unidentified callers)"
        case .owner(let id): id.text
        }
    }
}
