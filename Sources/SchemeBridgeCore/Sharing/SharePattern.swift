/// The content-type patterns of a share target (`X-SchemeBridge-Share-Types=`): `type/subtype`,
/// `type/*` or `*/*`. A shared item's type matches a pattern when it is that type or a sub-class
/// of it as shared-mime-info defines them (aliases resolved, declared parents, every `text/*` a
/// `text/plain`), or lies under the pattern's media type: `text/markdown` matches `text/plain`
/// and `text/*`; `image/png` matches `image/*`; anything matches `*/*`.
public enum SharePattern {
    /// `text` as a pattern, lower-cased; nil when it is none.
    public static func normalized(_ text: String) -> String? {
        let lower = Registry.lowercasedASCII(text)
        if lower == "*/*" || lower == "*" { return "*/*" }
        if lower.hasSuffix("/*") {
            let media = String(lower.dropLast(2))
            guard let valid = try? PasteboardType.validated(media + "/x"), valid == media + "/x" else { return nil }
            return lower
        }
        guard let valid = try? PasteboardType.validated(lower) else { return nil }
        return valid
    }

    /// Whether an item of content type `type` matches `pattern` (normalized); `isSubclass` is
    /// the content-type database's sub-class test (``ContentTypeDatabase/isSubclass(_:of:)``).
    public static func matches(_ type: String, _ pattern: String, isSubclass: (String, String) -> Bool) -> Bool {
        if pattern == "*/*" { return true }
        return isSubclass(type, pattern)
    }

    /// Whether an item of `type` matches one of `patterns`.
    public static func matchesAny(_ type: String, _ patterns: [String], isSubclass: (String, String) -> Bool) -> Bool {
        patterns.contains { matches(type, $0, isSubclass: isSubclass) }
    }
}

/// One item of a share as the rules see it: how it is handed over and its content type. The data
/// itself never reaches the rules (nor a sheet).
public struct ShareItemSummary: Sendable, Equatable {
    /// How an item is handed over.
    public enum Kind: String, Sendable, Equatable {
        /// A file (`file` h): a read-only copy in the target's Inbox.
        case file
        /// Bytes of a type (`type` + `data`): through a pasteboard granted to the target.
        case data
        /// A URL (`url` s): through the pasteboard as `text/x-uri`.
        case url
    }

    public let kind: Kind
    /// The item's content type (lower-case): detected or given for a file, given for data,
    /// ``uriType`` for a URL.
    public let type: String

    /// The content type a URL item is shared as (a sub-class of `text/plain`).
    public static let uriType = "text/x-uri"

    public init(kind: Kind, type: String) {
        self.kind = kind
        self.type = type
    }
}
