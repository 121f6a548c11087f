/// A key file kept line by line and byte for byte, for editing without disturbing anything else.
///
/// ``bytes`` of an unedited document equal the bytes it was made from, whatever they contain
/// (comments, blank lines, unknown groups and keys, repeated keys, malformed lines, even
/// invalid UTF-8). Edits touch only the lines they must: replacing a value rewrites that one
/// line, adding a key inserts one line, adding a group appends it at the end.
public struct KeyFileDocument: Sendable, Equatable {
    /// One line: its bytes without the terminating LF, and whether it had one.
    public struct Line: Sendable, Equatable {
        /// The bytes, without the `\n` (a `\r` before it is part of the bytes).
        public var bytes: [UInt8]
        /// Whether the line ended with `\n` (only the last line of a file may not).
        public var hasNewline: Bool
    }

    /// The lines.
    public private(set) var lines: [Line]

    /// Splits `bytes` into lines.
    public init(bytes: [UInt8]) {
        var lines: [Line] = []
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            lines.append(Line(bytes: Array(bytes[start..<i]), hasNewline: true))
            start = i + 1
        }
        if start < bytes.count {
            lines.append(Line(bytes: Array(bytes[start...]), hasNewline: false))
        }
        self.lines = lines
    }

    /// The document's bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(lines.reduce(0) { $0 + $1.bytes.count + 1 })
        for line in lines {
            out.append(contentsOf: line.bytes)
            if line.hasNewline { out.append(0x0A) }
        }
        return out
    }

    // MARK: reading lines

    private static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var a = bytes.startIndex
        var b = bytes.endIndex
        while a < b && (bytes[a] == 0x20 || bytes[a] == 0x09) { a += 1 }
        while b > a && (bytes[b - 1] == 0x20 || bytes[b - 1] == 0x09 || bytes[b - 1] == 0x0D) { b -= 1 }
        return bytes[a..<b]
    }

    /// The group name if line `i` is a `[group]` header.
    public func groupName(at i: Int) -> String? {
        let t = KeyFileDocument.trimmed(lines[i].bytes)
        guard t.count >= 3, t.first == UInt8(ascii: "["), t.last == UInt8(ascii: "]") else { return nil }
        return String(validating: t.dropFirst().dropLast(), as: UTF8.self)
    }

    /// The key (with any `[locale]` suffix) and the raw value if line `i` is `key=value`.
    public func keyValue(at i: Int) -> (key: String, value: String)? {
        let t = KeyFileDocument.trimmed(lines[i].bytes)
        guard let first = t.first, first != UInt8(ascii: "#"), first != UInt8(ascii: "["),
              let eq = t.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        var ke = eq
        while ke > t.startIndex && (t[ke - 1] == 0x20 || t[ke - 1] == 0x09) { ke -= 1 }
        var vs = eq + 1
        while vs < t.endIndex && (t[vs] == 0x20 || t[vs] == 0x09) { vs += 1 }
        guard ke > t.startIndex, let key = String(validating: t[t.startIndex..<ke], as: UTF8.self),
              let value = String(validating: t[vs..<t.endIndex], as: UTF8.self) else { return nil }
        return (key, value)
    }

    private func isEntryLine(_ i: Int) -> Bool {
        let t = KeyFileDocument.trimmed(lines[i].bytes)
        guard let first = t.first else { return false }
        return first != UInt8(ascii: "#") && first != UInt8(ascii: "[")
    }

    /// Every occurrence of group `name`: the header line and the line after its last line.
    public func groupRanges(_ name: String) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var openStart: Int? = nil
        for i in 0..<lines.count {
            if let g = groupName(at: i) {
                if let s = openStart { result.append(s..<i); openStart = nil }
                if g == name { openStart = i }
            }
        }
        if let s = openStart { result.append(s..<lines.count) }
        return result
    }

    /// The lines in group `group` whose key satisfies `matches`, in file order.
    public func lineIndices(inGroup group: String, where matches: (String) -> Bool) -> [Int] {
        var result: [Int] = []
        for range in groupRanges(group) {
            for i in range.dropFirst() {
                if let kv = keyValue(at: i), matches(kv.key) { result.append(i) }
            }
        }
        return result
    }

    /// The raw value of the last line in `group` whose key satisfies `matches` (the one a parser
    /// uses, since a later key wins).
    public func rawValue(inGroup group: String, where matches: (String) -> Bool) -> String? {
        lineIndices(inGroup: group, where: matches).last.flatMap { keyValue(at: $0)?.value }
    }

    // MARK: editing

    private func newLine(_ text: String, like neighbour: Int?) -> Line {
        var bytes = Array(text.utf8)
        if let n = neighbour, lines.indices.contains(n), lines[n].bytes.last == 0x0D { bytes.append(0x0D) }
        return Line(bytes: bytes, hasNewline: true)
    }

    /// Sets `key=rawValue` in `group`. If lines match (`matches`, default: equal to `key`), the
    /// last one is rewritten; otherwise a line is inserted after the last entry of the last
    /// occurrence of the group; if the group is missing it is appended at the end of the file.
    /// `rawValue` must already be escaped.
    public mutating func setValue(_ rawValue: String, forKey key: String, inGroup group: String,
                                  matching matches: ((String) -> Bool)? = nil) {
        let text = "\(key)=\(rawValue)"
        let matcher = matches ?? { $0 == key }
        if let i = lineIndices(inGroup: group, where: matcher).last {
            let cr = lines[i].bytes.last == 0x0D
            lines[i].bytes = Array(text.utf8) + (cr ? [0x0D] : [])
            return
        }
        if let range = groupRanges(group).last {
            var insertAt = range.lowerBound + 1
            for i in range.dropFirst() where isEntryLine(i) { insertAt = i + 1 }
            if insertAt == lines.count, let lastIndex = lines.indices.last, !lines[lastIndex].hasNewline {
                lines[lastIndex].hasNewline = true
            }
            lines.insert(newLine(text, like: insertAt - 1), at: insertAt)
            return
        }
        if let lastIndex = lines.indices.last {
            if !lines[lastIndex].hasNewline { lines[lastIndex].hasNewline = true }
            if !KeyFileDocument.trimmed(lines[lastIndex].bytes).isEmpty {
                lines.append(newLine("", like: lastIndex))
            }
        }
        let like = lines.indices.last
        lines.append(newLine("[\(group)]", like: like))
        lines.append(newLine(text, like: like))
    }

    /// Removes every line in `group` whose key satisfies `matches`.
    public mutating func removeKeys(inGroup group: String, where matches: (String) -> Bool) {
        for i in lineIndices(inGroup: group, where: matches).reversed() {
            lines.remove(at: i)
        }
    }
}
