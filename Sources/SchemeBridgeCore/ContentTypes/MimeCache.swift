/// One `mime.cache` file: shared-mime-info's binary cache (format 1.1 or 1.2), the file that
/// `update-mime-database` writes beside `globs2`, `magic`, `aliases` and `subclasses` and that
/// GLib's xdgmime reads. All integers are big-endian 32-bit; every list is found through the
/// header's offsets.
///
/// The whole file is read once (150 KiB for Debian 12's database) and checked by
/// ``MimeCacheCheck`` before it is used: every offset a lookup follows lies inside the file,
/// every string ends inside it, the suffix tree and the magic rules are trees (no loops, no
/// shared nodes). Lookups then walk the bytes directly, without decoding them into objects; the
/// reads still return 0 past the end, so even a check we got wrong cannot make a lookup trap.
final class MimeCache: Sendable {
    /// The largest cache accepted (Debian's is 150 KiB; Chromium's reader also stops at 10 MiB).
    static let maximumSize = 16 << 20

    /// The file it was read from.
    let path: String
    /// The version read, to notice a rewrite.
    let signature: FileSignature
    let bytes: [UInt8]
    /// The header's list offsets.
    let aliasList: Int
    let parentList: Int
    let literalList: Int
    let suffixTree: Int
    let globList: Int
    let magicList: Int
    /// Every MIME type name the lists refer to, by offset: lookups hand out these strings
    /// instead of decoding new ones.
    let typeNames: [Int: String]

    /// Reads and checks `path`; throws when it cannot be read or is not a cache we understand.
    convenience init(path: String) throws(MimeCacheError) {
        let read: (bytes: [UInt8], signature: FileSignature)
        do {
            read = try FileSystem.readFileWithSignature(path, limit: MimeCache.maximumSize)
        } catch {
            throw MimeCacheError(path: path, reason: error.message)
        }
        try self.init(bytes: read.bytes, path: path, signature: read.signature)
    }

    /// Checks `bytes` as the content of a cache file.
    init(bytes: [UInt8], path: String, signature: FileSignature = FileSignature()) throws(MimeCacheError) {
        self.path = path
        self.signature = signature
        self.bytes = bytes
        guard bytes.count >= 40 else { throw MimeCacheError(path: path, reason: "too short for a mime.cache header") }
        let major = Int(bytes[0]) << 8 | Int(bytes[1])
        let minor = Int(bytes[2]) << 8 | Int(bytes[3])
        guard major == 1, (1...2).contains(minor) else {
            throw MimeCacheError(path: path, reason: "mime.cache version \(major).\(minor) is not 1.1 or 1.2")
        }
        aliasList = MimeCache.u32(bytes, 4)
        parentList = MimeCache.u32(bytes, 8)
        literalList = MimeCache.u32(bytes, 12)
        suffixTree = MimeCache.u32(bytes, 16)
        globList = MimeCache.u32(bytes, 20)
        magicList = MimeCache.u32(bytes, 24)
        var check = MimeCacheCheck(bytes: bytes)
        guard check.run(aliases: aliasList, parents: parentList, literals: literalList, suffixes: suffixTree,
                        globs: globList, magic: magicList) else {
            throw MimeCacheError(path: path, reason: "malformed (\(check.problem))")
        }
        typeNames = check.typeNames
    }

    // MARK: reading

    /// The big-endian 32-bit integer at `offset`; 0 past the end.
    @inline(__always)
    func u32(_ offset: Int) -> Int { MimeCache.u32(bytes, offset) }

    @inline(__always)
    static func u32(_ bytes: [UInt8], _ offset: Int) -> Int {
        guard offset >= 0, offset <= bytes.count - 4 else { return 0 }
        return bytes.withUnsafeBufferPointer { p in
            Int(p[offset]) << 24 | Int(p[offset + 1]) << 16 | Int(p[offset + 2]) << 8 | Int(p[offset + 3])
        }
    }

    /// The MIME type name at `offset` (checked at load, so always known).
    @inline(__always)
    func typeName(_ offset: Int) -> String { typeNames[offset] ?? "" }

    /// `strcmp` of the NUL-terminated string at `offset` with `key` (which has no NUL in it):
    /// negative, 0 or positive, comparing bytes as unsigned.
    func compareString(at offset: Int, with key: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { p in
            var i = 0
            while true {
                let a: UInt8 = offset + i < p.count ? p[offset + i] : 0
                let b: UInt8 = i < key.count ? key[i] : 0
                if a != b { return Int(a) - Int(b) }
                if a == 0 { return 0 }
                i += 1
            }
        }
    }

    /// Binary search of a sorted list of `count` entries of `stride` bytes starting at `first`,
    /// each beginning with a string offset, for the entry whose string is `key`. The search is
    /// the one xdgmime makes (same midpoints), so a list that is not sorted as expected gives
    /// the answers GLib gives.
    func search(list first: Int, count: Int, stride: Int, for key: UnsafeBufferPointer<UInt8>) -> Int? {
        var low = 0
        var high = count - 1
        while high >= low {
            let mid = (low + high) / 2
            let entry = first + stride * mid
            let c = compareString(at: u32(entry), with: key)
            if c < 0 {
                low = mid + 1
            } else if c > 0 {
                high = mid - 1
            } else {
                return entry
            }
        }
        return nil
    }

    /// The largest offset into the data any magic rule looks at (`MAX_EXTENT`).
    var magicExtent: Int { u32(magicList + 4) }
}

/// A `mime.cache` that could not be used.
struct MimeCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    var path: String
    /// Why.
    var reason: String

    var description: String { "\(path): \(reason); its types are not used" }
}
