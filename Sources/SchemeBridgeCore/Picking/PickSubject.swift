/// What a pick asks for: the content types the caller will take (one to
/// ``maximumTypes``, patterns allowed), validated once where the request comes in.
public struct PickSubject: Sendable, Equatable {
    /// The types asked for, in the caller's order, without duplicates.
    public let types: [PickType]
    /// The most types one pick may ask for.
    public static let maximumTypes = 64
    /// The prefix of a pick's choice key (`pick:image/png`): picks are remembered apart from
    /// opening documents of the same type.
    public static let choicePrefix = "pick:"

    /// The types of `texts`; none at all means `*/*`. `InvalidArgs` for a text that is no type,
    /// or too many.
    public init(_ texts: [String]) throws(OpenFailure) {
        guard texts.count <= Self.maximumTypes else {
            throw OpenFailure(.invalidArgument, "a pick asks for at most \(Self.maximumTypes) content types, not \(texts.count)")
        }
        var types: [PickType] = []
        for text in texts {
            let type = try PickType(text)
            if !types.contains(type) { types.append(type) }
        }
        self.types = types.isEmpty ? [try! PickType("*/*")] : types
    }

    /// What a remembered pick or a `[Routes]` line is keyed by: `pick:` and the first type.
    public var choiceKey: String { Self.choicePrefix + types[0].name }

    /// Whether a provider offering `offered` may have documents of one of these types.
    public func isOffered(by offered: [PickType], types database: ContentTypeDatabase?) -> Bool {
        types.contains { asked in offered.contains { asked.overlaps($0, types: database) } }
    }

    /// The first asked type that the concrete `type` is of, nil when none.
    public func admitting(_ type: String, types database: ContentTypeDatabase?) -> PickType? {
        types.first { $0.admits(type, types: database) }
    }

    /// The types, as a person reads them.
    public var listed: String { types.map(\.name).joined(separator: ", ") }
}
