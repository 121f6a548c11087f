import Glibc

/// A file-name pattern that matched: its type, weight (0–100, default 50) and length, for
/// ordering (``MimeData/globMatches(forName:)``).
struct GlobMatch: Sendable, Equatable {
    var type: String
    var weight: Int
    /// The pattern's length, `*` included (characters for suffix patterns, else bytes).
    var patternLength: Int
}

/// The three glob lists of one cache. Patterns without the case-sensitive flag are stored
/// lower-case; ``MimeData/globMatches(forName:)`` looks a name up twice: lower-cased against
/// the case-insensitive patterns only (`caseSensitivePass` false), then as it is against every
/// pattern.
extension MimeCache {
    /// Weight bits and the case-sensitive flag of a glob entry's third word.
    static let weightMask = 0xFF
    static let caseSensitiveFlag = 0x100

    /// What the literal list says about a name.
    enum LiteralAnswer: Sendable, Equatable {
        /// A literal pattern (`Makefile`) matches.
        case match(GlobMatch)
        /// The name is listed, but as a case-sensitive literal in the case-insensitive pass:
        /// no literal matches in this pass, and no later cache is asked (as xdgmime does).
        case stop
        /// Not listed.
        case none
    }

    /// Looks `name` up in the sorted literal list.
    func literal(_ name: UnsafeBufferPointer<UInt8>, caseSensitivePass: Bool) -> LiteralAnswer {
        guard let entry = search(list: literalList + 4, count: u32(literalList), stride: 12, for: name) else { return .none }
        let flags = u32(entry + 8)
        guard caseSensitivePass || flags & MimeCache.caseSensitiveFlag == 0 else { return .stop }
        return .match(GlobMatch(type: typeName(u32(entry + 4)), weight: flags & MimeCache.weightMask, patternLength: name.count))
    }

    /// Appends the types of the longest `*.suffix` patterns that end `name` (Unicode scalars)
    /// to `matches`, up to `limit` in all.
    func suffixes(_ name: [UInt32], caseSensitivePass: Bool, into matches: inout [GlobMatch], limit: Int) {
        guard !name.isEmpty else { return }
        _ = suffixNode(count: u32(suffixTree), first: u32(suffixTree + 4), name: name, remaining: name.count,
                       caseSensitivePass: caseSensitivePass, into: &matches, limit: limit)
    }

    /// One level of the reverse suffix tree: the node for the character before `remaining`,
    /// then deeper; when nothing deeper matches, this node's own leaves. Returns how many were
    /// appended. (Depth is bounded by the name's length and the tree was checked at load.)
    private func suffixNode(count: Int, first: Int, name: [UInt32], remaining: Int, caseSensitivePass: Bool,
                            into matches: inout [GlobMatch], limit: Int) -> Int {
        let character = name[remaining - 1]
        var low = 0
        var high = count - 1
        while high >= low {
            let mid = (low + high) / 2
            let node = first + 12 * mid
            let c = UInt32(truncatingIfNeeded: u32(node))
            if c < character {
                low = mid + 1
            } else if c > character {
                high = mid - 1
            } else {
                let children = u32(node + 4)
                let child = u32(node + 8)
                var found = 0
                if remaining > 1 {
                    found = suffixNode(count: children, first: child, name: name, remaining: remaining - 1,
                                       caseSensitivePass: caseSensitivePass, into: &matches, limit: limit)
                }
                if found > 0 { return found }
                // Leaves (character 0) sort first among a node's children.
                var i = 0
                while matches.count < limit && i < children {
                    let leaf = child + 12 * i
                    if u32(leaf) != 0 { break }
                    let flags = u32(leaf + 8)
                    if caseSensitivePass || flags & MimeCache.caseSensitiveFlag == 0 {
                        matches.append(GlobMatch(type: typeName(u32(leaf + 4)), weight: flags & MimeCache.weightMask,
                                                 patternLength: name.count - remaining + 2))
                        found += 1
                    }
                    i += 1
                }
                return found
            }
        }
        return 0
    }

    /// Appends the types of the other patterns (`README*`, `*.[1-9]`) that match `name` (a C
    /// string), in list order, up to `limit` in all; `fnmatch(3)` without flags, as xdgmime.
    func wildcards(_ name: UnsafePointer<CChar>, caseSensitivePass: Bool, into matches: inout [GlobMatch], limit: Int) {
        let count = u32(globList)
        var j = 0
        while j < count && matches.count < limit {
            let entry = globList + 4 + 12 * j
            j += 1
            let flags = u32(entry + 8)
            guard caseSensitivePass || flags & MimeCache.caseSensitiveFlag == 0 else { continue }
            let pattern = u32(entry)
            let hit = bytes.withUnsafeBufferPointer { p -> (Bool, Int) in
                let start = UnsafeRawPointer(p.baseAddress! + pattern).assumingMemoryBound(to: CChar.self)
                return (fnmatch(start, name, 0) == 0, strlen(start))
            }
            if hit.0 {
                matches.append(GlobMatch(type: typeName(u32(entry + 4)), weight: flags & MimeCache.weightMask, patternLength: hit.1))
            }
        }
    }
}
