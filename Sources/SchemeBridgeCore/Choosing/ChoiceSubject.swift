/// What a choice or a route is about: a URL scheme (`todolist`) or a content type
/// (`text/plain`, for documents), in one normal form so that lookups and the files agree.
public enum ChoiceSubject {
    /// `text` as a subject: a scheme lower-cased, or a content type (`type/subtype`, the MIME
    /// token characters, at most 255 bytes) lower-cased; nil when it is neither.
    /// A pick's subject is `pick:` and a content type (`*` patterns allowed: `pick:image/*`).
    public static func normalized(_ text: String) -> String? {
        if text.hasPrefix(PickSubject.choicePrefix) {
            return PickType.validated(String(text.dropFirst(PickSubject.choicePrefix.count))).map { PickSubject.choicePrefix + $0 }
        }
        guard text.contains("/") else { return (try? Scheme(text))?.name }
        let bytes = Array(text.utf8)
        guard bytes.count <= 255 else { return nil }
        let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isTokenByte) }) else { return nil }
        return Registry.lowercasedASCII(text)
    }

    /// Whether `subject` (normalized) is a content type rather than a scheme.
    public static func isContentType(_ subject: String) -> Bool { subject.contains("/") && !isPick(subject) }

    /// Whether `subject` (normalized) is a pick's (`pick:TYPE`).
    public static func isPick(_ subject: String) -> Bool { subject.hasPrefix(PickSubject.choicePrefix) }

    /// The characters of a MIME type's parts (RFC 6838 `restricted-name-chars`).
    private static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "!#$&^_.+-".utf8.contains(b)
    }
}
