/// A content type a pick asks for or a provider offers: `type/subtype`, `type/*` or `*/*`,
/// lower-cased. A concrete type is of a pattern when it is the same type, when its top-level
/// type matches `type/*`, or when it is a sub-class of it (shared-mime-info: `text/markdown`
/// is of `text/plain`, and everything is of `application/octet-stream`).
public struct PickType: Sendable, Hashable, CustomStringConvertible {
    /// `type/subtype`, `type/*` or `*/*`, lower-case.
    public let name: String

    /// `text` as a pick type; `InvalidArgs` when it is none.
    public init(_ text: String) throws(OpenFailure) {
        guard let valid = Self.validated(text) else {
            throw OpenFailure(.invalidArgument, "'\(text.prefix(80))' is not a content type (type/subtype, type/* or */*)")
        }
        name = valid
    }

    /// `text` lower-cased when it is `type/subtype` (RFC 6838 characters), `type/*` or `*/*`.
    public static func validated(_ text: String) -> String? {
        if text == "*/*" { return text }
        if text.hasSuffix("/*") {
            let major = text.dropLast(2)
            guard let checked = try? PasteboardType.validated(major + "/x") else { return nil }
            return String(checked.dropLast(1)) + "*"
        }
        return try? PasteboardType.validated(text)
    }

    /// `*/*`, or `type/*`.
    public var isWildcard: Bool { name.hasSuffix("/*") }

    /// The top-level type (`image` of `image/png`; `*` of `*/*`).
    public var major: Substring { name[..<(name.firstIndex(of: "/") ?? name.endIndex)] }

    public var description: String { name }

    /// Whether the concrete type `type` is of this pattern (itself, `type/*`, `*/*`, or a type
    /// along its parent chain in `types`).
    public func admits(_ type: String, types: ContentTypeDatabase?) -> Bool {
        let type = Registry.lowercasedASCII(type)
        let chain = types?.parentChain(of: type).map(Registry.lowercasedASCII) ?? [type]
        return (chain.contains(type) ? chain : [type] + chain).contains(where: matchesDirectly)
    }

    /// Whether a provider that offers `offered` may have documents of this pattern: either
    /// admits the other (a provider of `text/plain` may keep `text/markdown` notes; a provider
    /// of `image/*` has `image/png`).
    public func overlaps(_ offered: PickType, types: ContentTypeDatabase?) -> Bool {
        if name == "*/*" || offered.name == "*/*" { return true }
        switch (isWildcard, offered.isWildcard) {
        case (true, true): return major == offered.major
        case (true, false): return admits(offered.name, types: types)
        case (false, true): return offered.admits(name, types: types)
        case (false, false): return admits(offered.name, types: types) || offered.admits(name, types: types)
        }
    }

    /// Whether `type` (lower-case, one name) matches without the hierarchy.
    private func matchesDirectly(_ type: String) -> Bool {
        if name == "*/*" { return true }
        if isWildcard { return type.hasPrefix(major + "/") }
        return type == name
    }
}
