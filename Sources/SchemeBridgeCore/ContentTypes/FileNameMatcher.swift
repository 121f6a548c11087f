/// File name → content types, from the glob patterns of all caches (the spec's "Glob files",
/// in the order xdgmime applies them, so that `gio` and we agree on which candidates a name
/// has):
///
/// 1. literal patterns (`Makefile`, `core`): the lower-cased name against the case-insensitive
///    ones, then the name as it is against all; the first hit is the only answer;
/// 2. suffix patterns (`*.tar.gz`): the longest suffix that has patterns wins (`x.tar.gz` is
///    never `*.gz`), whatever their weights; again lower-cased then as is, while fewer than two
///    matches were found (a lower-case name finds its own patterns twice, so it stops there);
/// 3. other patterns (`README*`, `*.[1-9]`), `fnmatch(3)`: the lower-cased name against the
///    case-insensitive ones when nothing matched yet, then the name as it is against all while
///    fewer than two matches were found.
///
/// Repeated types are merged (highest weight kept); the rest are ordered by weight, then — the
/// spec's rule for equal weights — by pattern length, longest first (GLib keeps list order:
/// `qrstu` is `q*` for GLib when both `q*` and `qrst*` weigh 50; see docs/CONTENT-TYPES.md).
/// Several types left mean the name alone does not decide: ``ContentSniffer`` looks at the
/// content. Case-insensitive means ASCII case, as in GLib.
extension MimeData {
    /// The most candidates a name gets (xdgmime keeps 10).
    static let maximumNameMatches = 10

    /// The candidates for a file name (a last path component), best first; empty when no
    /// pattern matches.
    func globMatches(forName name: [UInt8]) -> [GlobMatch] {
        let name = name.prefix { $0 != 0 }
        guard !name.isEmpty, !caches.isEmpty else { return [] }
        let lower = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        if let literal = literalMatch(lower: lower, original: Array(name)) { return [literal] }

        let limit = MimeData.maximumNameMatches
        var matches: [GlobMatch] = []
        let lowerScalars = MimeData.scalars(lower)
        for cache in caches where matches.count < limit {
            cache.suffixes(lowerScalars, caseSensitivePass: false, into: &matches, limit: limit)
        }
        if matches.count < 2 {
            let scalars = MimeData.scalars(Array(name))
            for cache in caches where matches.count < limit {
                cache.suffixes(scalars, caseSensitivePass: true, into: &matches, limit: limit)
            }
        }
        // Wildcards: the lower-cased name only when nothing matched yet, the name as it is
        // while fewer than two did (what `gio` does: `A.XY` keeps `*.xy`'s type even when a
        // heavier case-insensitive `*.x[yz]` exists, `Zzz` gets both `zz*` and `Zz*`).
        for (bytes, caseSensitivePass) in [(lower, false), (Array(name), true)] where matches.count < (caseSensitivePass ? 2 : 1) {
            let cName = bytes.map { CChar(bitPattern: $0) } + [0]
            cName.withUnsafeBufferPointer { c in
                for cache in caches where matches.count < limit {
                    cache.wildcards(c.baseAddress!, caseSensitivePass: caseSensitivePass, into: &matches, limit: limit)
                }
            }
        }
        return MimeData.ordered(MimeData.merged(matches))
    }

    private func literalMatch(lower: [UInt8], original: [UInt8]) -> GlobMatch? {
        for (bytes, caseSensitivePass) in [(lower, false), (original, true)] {
            let answer: GlobMatch? = bytes.withUnsafeBufferPointer { key in
                for cache in caches {
                    switch cache.literal(key, caseSensitivePass: caseSensitivePass) {
                    case .match(let m): return m
                    case .stop: return nil
                    case .none: continue
                    }
                }
                return nil
            }
            if let answer { return answer }
        }
        return nil
    }

    /// What follows the last `/` of a path (all of it when there is none).
    static func lastComponent(_ path: [UInt8]) -> [UInt8] {
        path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[($0 + 1)...]) } ?? path
    }

    /// Merges repeated types the way xdgmime does (the later one's slot is refilled from the
    /// end of the list), keeping the higher weight and the longer pattern.
    static func merged(_ input: [GlobMatch]) -> [GlobMatch] {
        var m = input
        var last = m.count
        var i = 0
        while i < last {
            var j = i + 1
            while j < last {
                if m[i].type == m[j].type {
                    m[i].weight = max(m[i].weight, m[j].weight)
                    m[i].patternLength = max(m[i].patternLength, m[j].patternLength)
                    last -= 1
                    m[j] = m[last]
                } else {
                    j += 1
                }
            }
            i += 1
        }
        return Array(m[..<last])
    }

    /// Highest weight first, then longest pattern; otherwise the order found (a stable sort).
    static func ordered(_ matches: [GlobMatch]) -> [GlobMatch] {
        matches.indices.sorted { a, b in
            let x = matches[a], y = matches[b]
            if x.weight != y.weight { return x.weight > y.weight }
            if x.patternLength != y.patternLength { return x.patternLength > y.patternLength }
            return a < b
        }.map { matches[$0] }
    }

    /// The Unicode scalars of a name, for the suffix tree (which stores characters); bytes that
    /// are not UTF-8 become a value no pattern has.
    static func scalars(_ bytes: [UInt8]) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): result.append(s.value)
            case .error: result.append(UInt32.max)
            case .emptyInput: return result
            }
        }
    }
}
