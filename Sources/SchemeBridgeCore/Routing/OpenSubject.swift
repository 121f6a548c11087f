/// What an open is for, validated once where the request comes in: a URL (its scheme decides,
/// as the content type `x-scheme-handler/<scheme>`) or a document (its content type). The
/// handler decision (``Broker/decide(_:requested:ask:caller:)``) takes only this, so nothing
/// after the adapter parses the caller's text again. A share is decided by the types of its items.
public enum OpenSubject: Sendable, Equatable {
    /// A URL, opened by its scheme's handlers.
    case url(SchemeURL)
    /// A document of a content type, opened by the handlers of the first type along its
    /// parent chain that has any.
    case document(ContentType)
    /// A share: its items' kinds and types (``Broker/decide(share:requested:ask:caller:)``).
    case share(ShareSubject)

    /// What remembered choices and `[Routes]` lines are keyed by: the scheme, or the content type.
    public var choiceKey: String {
        switch self {
        case .url(let u): return u.scheme.name
        case .document(let type): return type.name
        case .share: return ShareTargetID.choiceSubject
        }
    }

    /// The subject as a content type: `x-scheme-handler/<scheme>` for a URL.
    public var contentType: String {
        switch self {
        case .url(let u): return u.scheme.mimeType
        case .document(let type): return type.name
        case .share: return ShareTargetID.choiceSubject
        }
    }
}

/// A content type (`type/subtype`), lower-cased. Made from a caller's text it is checked
/// (RFC 6838's restricted-name characters, at most 255 bytes); made from the shared-mime-info
/// database's answer it is taken as the database names it.
public struct ContentType: Sendable, Hashable, CustomStringConvertible {
    /// `type/subtype`, lower-case.
    public let name: String

    /// `text` as a content type; `InvalidArgs` when it is none.
    public init(_ text: String) throws(OpenFailure) {
        guard let valid = try? PasteboardType.validated(text) else {
            throw OpenFailure(.invalidArgument, "'\(text.prefix(80))' is not a content type (type/subtype)")
        }
        self.name = valid
    }

    /// A type the content-type database gave (its own names are not the caller's text).
    public init(detected name: String) {
        self.name = Registry.lowercasedASCII(name)
    }

    public var description: String { name }
}
