/// A guessed content type, and whether the guess is uncertain (GLib's `result_uncertain`: the
/// name had no pattern or several conflicting ones, and the content did not settle it).
public struct ContentTypeGuess: Sendable, Equatable, CustomStringConvertible {
    /// The MIME type.
    public var type: String
    /// True when neither the name nor the content decided.
    public var isUncertain: Bool

    /// Makes a guess.
    public init(type: String, isUncertain: Bool) {
        self.type = type
        self.isUncertain = isUncertain
    }

    public var description: String { isUncertain ? "\(type) (uncertain)" : type }
}

/// Name and content together, as GLib's `g_content_type_guess` combines them:
///
/// 1. a name ending in `/` is `inode/directory` (uncertain); otherwise its glob candidates
///    (``MimeData/globMatches(forName:)``); exactly one candidate is the answer;
/// 2. with content: the highest-priority magic match; no match and no control character other
///    than tab, CR and LF in the first 128 bytes (xdgmime's test) — or none at all but form
///    feed and backspace (GLib's own test, over all the bytes) — is `text/plain`; empty content
///    is `application/x-zerosize` at priority 100. Content that looks like a desktop entry is
///    `text/plain` when a name was given: a desktop entry is recognised by its name only (a
///    file that launches programs must not hide behind another name);
/// 3. no candidates: the content's type (else `application/octet-stream`, uncertain);
///    several: the content's type when its magic priority is 80 or more, else the first
///    candidate that is (a subclass of) the content's type, else the first candidate (uncertain).
enum ContentSniffer {
    /// The priority from which magic overrides conflicting name candidates (GLib's 80).
    static let overridingPriority = 80

    /// xdgmime's binary-or-text test: the first 128 bytes have no control character other
    /// than tab, LF and CR.
    static func startsLikeText(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in data.prefix(128) where b < 32 && b != 9 && b != 10 && b != 13 { return false }
        return true
    }

    /// GLib's `looks_like_text`: no ASCII control character (0–31, 127) in the whole data other
    /// than the white space tab, LF, FF, CR and backspace (vertical tab counts as control).
    static func looksLikeText(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in data where (b < 32 || b == 127) && b != 9 && b != 10 && b != 12 && b != 13 && b != 8 { return false }
        return true
    }

    /// The content's type and priority: magic, else text or nothing.
    static func sniff(_ data: UnsafeBufferPointer<UInt8>, in mime: MimeData) -> (type: String, priority: Int)? {
        if data.isEmpty { return (ContentTypeName.zeroSize, 100) }
        if let m = mime.magic(data) { return m }
        if startsLikeText(data) || looksLikeText(data) { return (ContentTypeName.plainText, 0) }
        return nil
    }
}

extension MimeData {
    /// `g_content_type_guess(name, data)`: see ``ContentSniffer``. `name` may be a path (its
    /// last component is used); `data` nil means no content is known.
    func guess(name: [UInt8]?, data: UnsafeBufferPointer<UInt8>?) -> ContentTypeGuess {
        var candidates: [String] = []
        var uncertain = false
        if let name {
            if name.last == UInt8(ascii: "/") {
                candidates = [ContentTypeName.directory]
                uncertain = true
            } else {
                candidates = globMatches(forName: MimeData.lastComponent(name)).map(\.type)
            }
        }
        if candidates.count == 1 { return ContentTypeGuess(type: candidates[0], isUncertain: uncertain) }

        var sniffed = data.flatMap { ContentSniffer.sniff($0, in: self) }
        if name != nil, sniffed?.type == ContentTypeName.desktopEntry { sniffed?.type = ContentTypeName.plainText }
        guard let first = candidates.first else {
            return ContentTypeGuess(type: sniffed?.type ?? ContentTypeName.octetStream, isUncertain: sniffed == nil)
        }
        if let sniffed {
            if sniffed.priority >= ContentSniffer.overridingPriority {
                return ContentTypeGuess(type: sniffed.type, isUncertain: false)
            }
            if let derived = candidates.first(where: { isSubclass($0, of: sniffed.type) }) {
                return ContentTypeGuess(type: derived, isUncertain: false)
            }
        }
        return ContentTypeGuess(type: first, isUncertain: true)
    }
}
