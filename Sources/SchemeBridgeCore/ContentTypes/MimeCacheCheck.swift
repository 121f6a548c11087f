import Glibc

/// The load-time check of a `mime.cache` (see ``MimeCache``): every list lies inside the file,
/// every string offset points at a NUL-terminated string, the reverse suffix tree and the magic
/// matchlets form trees of bounded depth whose nodes are each reached once — so a damaged or
/// hostile cache (a user can write `~/.local/share/mime/mime.cache`) is refused as a whole
/// instead of sending a lookup round a loop. It also collects the MIME type names.
struct MimeCacheCheck {
    let bytes: [UInt8]
    /// The type names found, by offset.
    var typeNames: [Int: String] = [:]
    /// What was wrong, when ``run(aliases:parents:literals:suffixes:globs:magic:)`` returned false.
    var problem = ""
    private var budget = 0

    /// The deepest suffix tree accepted: a file name has at most 255 bytes.
    static let maximumSuffixDepth = 256
    /// The deepest magic rule accepted (shared-mime-info's own rules nest 5 deep).
    static let maximumMagicDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func run(aliases: Int, parents: Int, literals: Int, suffixes: Int, globs: Int, magic: Int) -> Bool {
        checkStringList(aliases, stride: 8, name: "alias list") && checkParents(parents)
            && checkStringList(literals, stride: 12, name: "literal list") && checkStringList(globs, stride: 12, name: "glob list")
            && checkSuffixTree(suffixes) && checkMagic(magic)
    }

    private func u32(_ offset: Int) -> Int { MimeCache.u32(bytes, offset) }

    private mutating func fail(_ what: String) -> Bool {
        problem = what
        return false
    }

    /// A list of `count` entries of `stride` bytes after a 4-byte count at `offset` fits.
    private func fits(_ offset: Int, entries count: Int, stride: Int, header: Int = 4) -> Bool {
        offset >= 40 && count >= 0 && count <= bytes.count / max(stride, 1)
            && offset + header + count * stride <= bytes.count
    }

    /// Whether `length` bytes at `offset` lie after the header and inside the file.
    private func holds(_ offset: Int, _ length: Int) -> Bool {
        length == 0 || (offset >= 40 && offset + length <= bytes.count)
    }

    /// Whether a NUL-terminated string starts at `offset`.
    private func isString(_ offset: Int) -> Bool {
        guard offset >= 40, offset < bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { p in
            memchr(p.baseAddress! + offset, 0, p.count - offset) != nil
        }
    }

    /// Checks the string at `offset` and records it as a type name.
    private mutating func typeName(_ offset: Int) -> Bool {
        if typeNames[offset] != nil { return true }
        guard isString(offset) else { return false }
        let end = bytes[offset...].firstIndex(of: 0)!
        typeNames[offset] = String(decoding: bytes[offset..<end], as: UTF8.self)
        return true
    }

    /// Parents: (type, offset of a list of parent types).
    private mutating func checkParents(_ list: Int) -> Bool {
        let n = u32(list)
        guard fits(list, entries: n, stride: 8) else { return fail("parent list out of bounds") }
        for i in 0..<n {
            let entry = list + 4 + 8 * i
            guard typeName(u32(entry)) else { return fail("bad string in parent list") }
            let parents = u32(entry + 4)
            let count = u32(parents)
            guard fits(parents, entries: count, stride: 4) else { return fail("parents out of bounds") }
            for j in 0..<count where !typeName(u32(parents + 4 + 4 * j)) {
                return fail("bad parent name")
            }
        }
        return true
    }

    /// Aliases (alias, type), literals and globs (pattern, type, weight and flags): entries of
    /// `stride` bytes that start with a string and a type name.
    private mutating func checkStringList(_ list: Int, stride: Int, name: String) -> Bool {
        let n = u32(list)
        guard fits(list, entries: n, stride: stride) else { return fail("\(name) out of bounds") }
        for i in 0..<n {
            let entry = list + 4 + stride * i
            guard isString(u32(entry)), typeName(u32(entry + 4)) else { return fail("bad string in \(name)") }
        }
        return true
    }

    /// One level of a tree: `count` nodes of `stride` bytes at `first`, within the depth limit
    /// and the node budget (which a node reached twice, through a loop or a shared subtree,
    /// exhausts: the budget is the number of nodes the file has room for).
    private mutating func enter(_ count: Int, at first: Int, stride: Int, depth: Int, maximumDepth: Int, tree: String) -> Bool {
        if count == 0 { return true }
        guard depth <= maximumDepth else { return fail("\(tree) too deep") }
        guard fits(first, entries: count, stride: stride, header: 0) else { return fail("\(tree) out of bounds") }
        budget -= count
        return budget >= 0 || fail("\(tree) has shared nodes or loops")
    }

    private mutating func checkSuffixTree(_ tree: Int) -> Bool {
        guard tree >= 40, tree + 8 <= bytes.count else { return fail("suffix tree out of bounds") }
        budget = bytes.count / 12
        return checkSuffixNodes(count: u32(tree), first: u32(tree + 4), depth: 0)
    }

    private mutating func checkSuffixNodes(count: Int, first: Int, depth: Int) -> Bool {
        guard enter(count, at: first, stride: 12, depth: depth, maximumDepth: MimeCacheCheck.maximumSuffixDepth, tree: "suffix tree") else { return false }
        for i in 0..<count {
            let node = first + 12 * i
            if u32(node) == 0 {
                guard typeName(u32(node + 4)) else { return fail("bad suffix leaf") }
            } else if !checkSuffixNodes(count: u32(node + 4), first: u32(node + 8), depth: depth + 1) {
                return false
            }
        }
        return true
    }

    private mutating func checkMagic(_ list: Int) -> Bool {
        guard list >= 40, list + 12 <= bytes.count else { return fail("magic list out of bounds") }
        let n = u32(list)
        let first = u32(list + 8)
        guard fits(first, entries: n, stride: 16, header: 0) else { return fail("magic entries out of bounds") }
        budget = bytes.count / 32
        for i in 0..<n {
            let entry = first + 16 * i
            guard typeName(u32(entry + 4)) else { return fail("bad magic type name") }
            guard checkMatchlets(count: u32(entry + 8), first: u32(entry + 12), depth: 0) else { return false }
        }
        return true
    }

    private mutating func checkMatchlets(count: Int, first: Int, depth: Int) -> Bool {
        guard enter(count, at: first, stride: 32, depth: depth, maximumDepth: MimeCacheCheck.maximumMagicDepth, tree: "magic rules") else { return false }
        for i in 0..<count {
            let m = first + 32 * i
            let length = u32(m + 12)
            let value = u32(m + 16)
            let mask = u32(m + 20)
            guard holds(value, length), mask == 0 || holds(mask, length) else {
                return fail("matchlet value out of bounds")
            }
            guard checkMatchlets(count: u32(m + 24), first: u32(m + 28), depth: depth + 1) else { return false }
        }
        return true
    }
}
