/// Whom a copy in the Inboxes is charged to (``InboxLimits``): the sending app, by its caller
/// identity, or one charge shared by every caller the service could not identify. A caller can
/// name itself anything, but never the shared charge: that is a case, not a name.
public enum InboxSender: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// An identified caller.
    case caller(CallerID)
    /// Every caller the service could not identify, together.
    case unidentified

    /// The charge of a caller known as `id` (``Caller/id``); nil: ``unidentified``.
    public init(_ id: CallerID?) { self = id.map { .caller($0) } ?? .unidentified }

    /// As messages name it: the caller's identity, or `(unidentified)`.
    public var description: String {
        switch self {
        case .caller(let id): id.text
        case .unidentified: "(unidentified)"
        }
    }

    /// By ``description``; a caller spelled `(unidentified)` after the shared charge.
    public static func < (a: InboxSender, b: InboxSender) -> Bool {
        (a.description, a == .unidentified ? 0 : 1) < (b.description, b == .unidentified ? 0 : 1)
    }
}
