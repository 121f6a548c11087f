/// The magic rules of one cache: entries sorted by priority (highest first, as
/// `update-mime-database` writes them), each a list of matchlets; a matchlet matches when its
/// value (under its mask) is found at some offset of its range, and then, if it has children,
/// when one of them matches too (the nested `>` lines of the `magic` file).
///
/// Word sizes are not looked at: `update-mime-database` already wrote `host16`/`host32` values
/// in this machine's byte order (xdgmime ignores them too).
extension MimeCache {
    /// The first entry (highest priority) with a matching rule: its type and priority.
    func magic(_ data: UnsafeBufferPointer<UInt8>) -> (type: String, priority: Int)? {
        let count = u32(magicList)
        let first = u32(magicList + 8)
        for i in 0..<count {
            let entry = first + 16 * i
            let matchlets = u32(entry + 8)
            let firstMatchlet = u32(entry + 12)
            for m in 0..<matchlets where matchletMatches(firstMatchlet + 32 * m, data, depth: 0) {
                return (typeName(u32(entry + 4)), u32(entry))
            }
        }
        return nil
    }

    private func matchletMatches(_ matchlet: Int, _ data: UnsafeBufferPointer<UInt8>, depth: Int) -> Bool {
        guard depth <= MimeCacheCheck.maximumMagicDepth, valueFound(matchlet, data) else { return false }
        let children = u32(matchlet + 24)
        if children == 0 { return true }
        let first = u32(matchlet + 28)
        for c in 0..<children where matchletMatches(first + 32 * c, data, depth: depth + 1) {
            return true
        }
        return false
    }

    /// Whether the matchlet's value is at one of the offsets `rangeStart ..< rangeStart + rangeLength`.
    private func valueFound(_ matchlet: Int, _ data: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = u32(matchlet)
        let end = start + u32(matchlet + 4)
        let length = u32(matchlet + 12)
        let value = u32(matchlet + 16)
        let mask = u32(matchlet + 20)
        return bytes.withUnsafeBufferPointer { p in
            guard value + length <= p.count, mask == 0 || mask + length <= p.count else { return false }
            var offset = start
            while offset < end {
                // Past the data: neither this offset nor any later one can match.
                if offset + length > data.count { return false }
                var equal = true
                var j = 0
                if mask == 0 {
                    while j < length {
                        if p[value + j] != data[offset + j] { equal = false; break }
                        j += 1
                    }
                } else {
                    while j < length {
                        let m = p[mask + j]
                        if p[value + j] & m != data[offset + j] & m { equal = false; break }
                        j += 1
                    }
                }
                if equal { return true }
                offset += 1
            }
            return false
        }
    }
}
