import Glibc

/// A problem in a key file, with the file and 1-based line it is on (0 when it concerns the whole
/// file). Used both for errors that stop parsing and for warnings that do not.
public struct KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the problem is in.
    public var path: String
    /// The 1-based line number, or 0 for the whole file.
    public var line: Int
    /// What is wrong, for a person.
    public var message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

/// A parsed key file in the freedesktop "Desktop Entry" syntax (used by `.desktop` files and
/// `mimeapps.list`).
///
/// Syntax accepted:
/// - lines end with LF; a CR before the LF is ignored; leading spaces and tabs are ignored;
/// - blank lines and lines starting with `#` are comments;
/// - `[Group Name]` starts a group (any characters but `[`, `]` and control characters);
/// - `Key=Value` and `Key[locale]=Value`; spaces around `=` are ignored; a key may contain any
///   character but `=`, `[`, `]` and control characters (so MIME types work as keys; inner
///   spaces are accepted as GLib does);
/// - the file must be UTF-8 without NUL bytes, and a key line before the first group is an error.
///
/// Decisions where the spec says "may not" but files in the wild do it anyway (documented in
/// docs/REGISTRY.md): a key repeated within a group — the later value wins (as GLib) and a
/// warning is recorded; a group repeated — its keys are merged into the first occurrence (as
/// GLib), later values winning, with a warning.
///
/// Values are stored raw (escaped); ``Group/string(_:)`` and friends unescape them.
public struct KeyFile: Sendable {
    /// One `key=value` line.
    public struct Entry: Sendable, Equatable {
        /// The key without its locale suffix.
        public let key: String
        /// The locale in `Key[locale]`, with any `.ENCODING` part removed; nil when unlocalized.
        public let locale: String?
        /// The raw value, escapes not yet undone.
        public let rawValue: String
        /// The 1-based line number.
        public let line: Int
    }

    /// One `[group]` with its entries in file order (a repeated key keeps the position of its
    /// first occurrence and the value of its last).
    public struct Group: Sendable {
        /// The group name.
        public let name: String
        /// The line of the (first) header.
        public let line: Int
        /// The entries.
        public private(set) var entries: [Entry] = []
        private var index: [EntryKey: Int] = [:]

        private struct EntryKey: Hashable {
            var key: String
            var locale: String?
        }

        init(name: String, line: Int) {
            self.name = name
            self.line = line
        }

        /// Adds an entry; returns the line of an earlier entry it replaced, if any.
        mutating func add(_ entry: Entry) -> Int? {
            let k = EntryKey(key: entry.key, locale: entry.locale)
            if let i = index[k] {
                let old = entries[i].line
                entries[i] = entry
                return old
            }
            index[k] = entries.count
            entries.append(entry)
            return nil
        }

        /// The raw (escaped) value of `key` (with `locale`, if given).
        public func rawValue(_ key: String, locale: String? = nil) -> String? {
            index[EntryKey(key: key, locale: locale)].map { entries[$0].rawValue }
        }

        /// The entry of `key` (with `locale`, if given).
        public func entry(_ key: String, locale: String? = nil) -> Entry? {
            index[EntryKey(key: key, locale: locale)].map { entries[$0] }
        }

        /// The unescaped string value of `key`.
        public func string(_ key: String) -> String? {
            rawValue(key).map(KeyFileValue.unescape)
        }

        /// The value of `key` for the best matching locale, unescaped (spec matching order).
        public func localizedString(_ key: String, matcher: LocaleMatcher) -> String? {
            for candidate in matcher.candidates {
                if let raw = rawValue(key, locale: candidate) { return KeyFileValue.unescape(raw) }
            }
            return string(key)
        }

        /// The `;`-separated list value of `key`, elements unescaped (`\;` is a literal `;`).
        public func stringList(_ key: String) -> [String]? {
            rawValue(key).map(KeyFileValue.splitList)
        }

        /// The boolean value of `key`: `true`/`false` (and `1`/`0`, as GLib accepts); nil when
        /// absent or not a boolean.
        public func boolean(_ key: String) -> Bool? {
            guard let raw = rawValue(key) else { return nil }
            var v = Substring(raw)
            while let last = v.last, last == " " || last == "\t" { v.removeLast() }
            switch v {
            case "true", "1": return true
            case "false", "0": return false
            default: return nil
            }
        }
    }

    /// The file the content came from (used in messages).
    public let path: String
    /// The groups in file order.
    public private(set) var groups: [Group] = []
    /// Non-fatal problems (repeated keys and groups).
    public private(set) var warnings: [KeyFileError] = []
    private var groupIndex: [String: Int] = [:]
    private var localeFilter: Set<String>? = nil

    /// Parses `bytes`, read from `path`.
    ///
    /// With `keepingLocales`, localized entries (`Key[xx]`) whose locale is not one of the
    /// matcher's candidates are checked but not stored (a desktop file often has dozens of
    /// translations that a reader for one locale never looks at).
    /// - Throws: ``KeyFileError`` with the line of the first syntax error or non-UTF-8 line.
    public init(bytes: [UInt8], path: String, keepingLocales: LocaleMatcher? = nil) throws(KeyFileError) {
        self.path = path
        self.localeFilter = keepingLocales.map { Set($0.candidates) }
        try bytes.withUnsafeBufferPointer { (buf: UnsafeBufferPointer<UInt8>) throws(KeyFileError) in
            try parse(buf)
        }
    }

    /// Parses `text`.
    public init(text: String, path: String) throws(KeyFileError) {
        try self.init(bytes: Array(text.utf8), path: path)
    }

    /// The group called `name`, if present.
    public func group(_ name: String) -> Group? {
        groupIndex[name].map { groups[$0] }
    }

    private mutating func parse(_ buf: UnsafeBufferPointer<UInt8>) throws(KeyFileError) {
        let count = buf.count
        // Whole-file checks first: UTF-8 and NUL bytes, reported with their line.
        // (Plain ASCII without NUL, the common case, is checked without making a String of it.)
        if !buf.allSatisfy({ $0 != 0 && $0 < 0x80 }) && (String(validating: buf, as: UTF8.self) == nil || buf.contains(0)) {
            var line = 1
            var start = 0
            for i in 0...count {
                if i == count || buf[i] == 0x0A {
                    let slice = UnsafeBufferPointer(rebasing: buf[start..<i])
                    if slice.contains(0) {
                        throw KeyFileError(path: path, line: line, message: "contains a NUL byte")
                    }
                    if String(validating: slice, as: UTF8.self) == nil {
                        throw KeyFileError(path: path, line: line, message: "is not valid UTF-8")
                    }
                    line += 1
                    start = i + 1
                }
            }
        }
        var current: Int? = nil
        var lineNumber = 0
        var start = 0
        while start <= count {
            // memchr: a line of a megabyte is found at memory speed.
            var end = count
            if start < count, let base = buf.baseAddress, let nl = memchr(base + start, 0x0A, count - start) {
                end = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            }
            lineNumber += 1
            defer { start = end + 1 }
            if start == count && end == count { break }
            var a = start
            var b = end
            if b > a && buf[b - 1] == 0x0D { b -= 1 }
            while a < b && (buf[a] == 0x20 || buf[a] == 0x09) { a += 1 }
            if a == b || buf[a] == UInt8(ascii: "#") { continue }
            if buf[a] == UInt8(ascii: "[") {
                var e = b
                while e > a && (buf[e - 1] == 0x20 || buf[e - 1] == 0x09) { e -= 1 }
                guard e - a >= 3, buf[e - 1] == UInt8(ascii: "]") else {
                    throw KeyFileError(path: path, line: lineNumber,
                                       message: "group header must look like [Group Name]")
                }
                let nameBytes = UnsafeBufferPointer(rebasing: buf[(a + 1)..<(e - 1)])
                if nameBytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) {
                    throw KeyFileError(path: path, line: lineNumber,
                                       message: "group name contains '[', ']' or a control character")
                }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if let existing = groupIndex[name] {
                    warnings.append(KeyFileError(path: path, line: lineNumber,
                                                 message: "group [\(name)] repeats the one on line \(groups[existing].line); their keys are merged"))
                    current = existing
                } else {
                    groupIndex[name] = groups.count
                    current = groups.count
                    groups.append(Group(name: name, line: lineNumber))
                }
                continue
            }
            guard let eq = (a..<b).first(where: { buf[$0] == UInt8(ascii: "=") }) else {
                throw KeyFileError(path: path, line: lineNumber,
                                   message: "expected a comment, a [group] header or key=value")
            }
            guard let groupIdx = current else {
                throw KeyFileError(path: path, line: lineNumber,
                                   message: "key=value before the first [group] header")
            }
            var ke = eq
            while ke > a && (buf[ke - 1] == 0x20 || buf[ke - 1] == 0x09) { ke -= 1 }
            guard ke > a else {
                throw KeyFileError(path: path, line: lineNumber, message: "empty key before '='")
            }
            var keyEnd = ke
            var locale: String? = nil
            if buf[ke - 1] == UInt8(ascii: "]") {
                guard let open = (a..<ke).first(where: { buf[$0] == UInt8(ascii: "[") }), open > a else {
                    throw KeyFileError(path: path, line: lineNumber, message: "malformed locale suffix in key")
                }
                let loc = UnsafeBufferPointer(rebasing: buf[(open + 1)..<(ke - 1)])
                if loc.isEmpty || loc.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) {
                    throw KeyFileError(path: path, line: lineNumber, message: "malformed locale suffix in key")
                }
                let rawLocale = String(decoding: loc, as: UTF8.self)
                let normalized = loc.contains(UInt8(ascii: ".")) ? LocaleMatcher.normalizeKeyLocale(rawLocale) : rawLocale
                if let filter = localeFilter, !filter.contains(normalized) { continue }
                locale = normalized
                keyEnd = open
            }
            let keyBytes = UnsafeBufferPointer(rebasing: buf[a..<keyEnd])
            if keyBytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) {
                throw KeyFileError(path: path, line: lineNumber,
                                   message: "key contains '[', ']' or a control character")
            }
            var vs = eq + 1
            while vs < b && (buf[vs] == 0x20 || buf[vs] == 0x09) { vs += 1 }
            let entry = Entry(key: String(decoding: keyBytes, as: UTF8.self), locale: locale,
                              rawValue: String(decoding: UnsafeBufferPointer(rebasing: buf[vs..<b]), as: UTF8.self),
                              line: lineNumber)
            if let old = groups[groupIdx].add(entry) {
                let shown = locale.map { "\(entry.key)[\($0)]" } ?? entry.key
                warnings.append(KeyFileError(path: path, line: lineNumber,
                                             message: "key '\(shown)' repeats the one on line \(old); the later value is used"))
            }
        }
    }
}

/// The value escapes of the Desktop Entry spec ("Possible value types").
public enum KeyFileValue {
    /// Undoes `\s` (space), `\n`, `\t`, `\r` and `\\`. Any other backslash sequence is kept as it
    /// is (backslash included), so that `\"`, `` \` `` and `\$` reach the Exec quoting rules, as the
    /// spec's note on Exec intends; a trailing lone backslash is kept too.
    public static func unescape(_ raw: String) -> String {
        guard raw.utf8.contains(UInt8(ascii: "\\")) else { return raw }
        var out: [UInt8] = []
        out.reserveCapacity(raw.utf8.count)
        var it = raw.utf8.makeIterator()
        while let c = it.next() {
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                continue
            }
            guard let n = it.next() else {
                out.append(c)
                break
            }
            switch n {
            case UInt8(ascii: "s"): out.append(0x20)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            default:
                out.append(c)
                out.append(n)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Splits a `;`-separated list (`a;b\;c;` → `["a", "b;c"]`), unescaping each element. A
    /// trailing `;` is optional; empty elements are dropped.
    public static func splitList(_ raw: String) -> [String] {
        var result: [String] = []
        forEachListElement(raw) { element in
            result.append(element)
            return true
        }
        return result
    }

    /// Calls `body` with each element of a `;`-separated list, as ``splitList(_:)`` gives
    /// them, until it returns false: a long list costs only the elements visited. An element
    /// without a backslash is made straight from its bytes.
    static func forEachListElement(_ raw: String, _ body: (String) -> Bool) {
        var raw = raw
        raw.withUTF8 { buf in
            let count = buf.count
            var start = 0
            var i = 0
            var escaped = false
            func emit(_ end: Int) -> Bool {
                defer {
                    start = end + 1
                    escaped = false
                }
                guard end > start else { return true }
                let bytes = UnsafeBufferPointer(rebasing: buf[start..<end])
                return body(escaped ? unescapeListElement(bytes) : String(decoding: bytes, as: UTF8.self))
            }
            while i < count {
                switch buf[i] {
                case UInt8(ascii: "\\"):
                    // The next byte is escaped (a `\;` does not end the element).
                    escaped = true
                    i = min(i + 2, count)
                case UInt8(ascii: ";"):
                    if !emit(i) { return }
                    i += 1
                default:
                    i += 1
                }
            }
            _ = emit(count)
        }
    }

    /// One list element with backslashes: `\;` becomes `;`, then ``unescape(_:)``.
    private static func unescapeListElement(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var current: [UInt8] = []
        current.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\\"), i + 1 < bytes.count {
                if bytes[i + 1] != UInt8(ascii: ";") { current.append(c) }
                current.append(bytes[i + 1])
                i += 2
            } else {
                current.append(c)
                i += 1
            }
        }
        return unescape(String(decoding: current, as: UTF8.self))
    }

    /// Escapes a string for a key-file value: `\\`, `\n`, `\t`, `\r`, and a leading space as `\s`.
    public static func escape(_ value: String) -> String {
        var out = ""
        for (i, ch) in value.enumerated() {
            switch ch {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case " " where i == 0: out += "\\s"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Escapes list elements and joins them with `;`, with a trailing `;` (as GLib writes lists).
    public static func joinList(_ elements: [String]) -> String {
        elements.map { escape($0).replacingOccurrencesOfSemicolon() }.map { $0 + ";" }.joined()
    }
}

extension String {
    fileprivate func replacingOccurrencesOfSemicolon() -> String {
        var out = ""
        for ch in self {
            if ch == ";" { out += "\\;" } else { out.append(ch) }
        }
        return out
    }
}
