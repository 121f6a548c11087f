import Glibc
import Testing
@testable import SchemeBridgeCore

/// A `mime.cache` is a file anyone can write in their own `~/.local/share/mime`: damaged,
/// truncated or crafted caches are refused or read without a trap, a loop or a hang.
@Suite struct MimeCacheHostileTests {
    static let names = ["x.png", "X.TAR.GZ", "Makefile", "core", "README.md", "a.b.c.d", "libx.so.1", "ü.ü", "", ".", "x"]
    static let contents: [[UInt8]] = ContentTypeSamples.magic.map(\.bytes).filter { $0.count <= 4096 }

    /// Uses `cache` as a database would; nothing to check but that it returns.
    static func exercise(_ cache: MimeCache) {
        let data = MimeData(caches: [cache])
        for name in names { _ = data.globMatches(forName: Array(name.utf8)) }
        for bytes in contents.prefix(40) { _ = bytes.withUnsafeBufferPointer { data.magic($0) } }
        for type in ["image/png", "application/x-pdf", "text/x-python3", "zz"] {
            _ = data.parentChain(of: type)
            _ = data.isSubclass(type, of: "text/plain")
        }
    }

    static func installed() throws -> [UInt8] {
        try FileSystem.readFile("/usr/share/mime/mime.cache", limit: MimeCache.maximumSize)
    }

    @Test func truncatedCachesAreRefusedOrHarmless() throws {
        let bytes = try MimeCacheHostileTests.installed()
        var refused = 0
        for length in [0, 3, 4, 39, 40, 41, 100] + stride(from: 1000, to: bytes.count, by: bytes.count / 37) {
            guard let cache = try? MimeCache(bytes: Array(bytes.prefix(length)), path: "truncated") else {
                refused += 1
                continue
            }
            MimeCacheHostileTests.exercise(cache)
        }
        #expect(refused > 0)
    }

    @Test func corruptedCachesAreRefusedOrHarmless() throws {
        let original = try MimeCacheHostileTests.installed()
        var rng = DifferentialTests.SplitMix(state: 15)
        var loaded = 0
        for round in 0..<60 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] = round % 3 == 0 ? 0xFF : UInt8.random(in: 0...255, using: &rng)
            }
            guard let cache = try? MimeCache(bytes: bytes, path: "corrupted") else { continue }
            loaded += 1
            MimeCacheHostileTests.exercise(cache)
        }
        #expect(loaded > 0, "every corruption was refused: the check is too strict for single-byte changes in data")
    }

    /// A cache with empty lists except `suffix` and `magic` (given as words at offsets 52 and 64).
    static func crafted(version: UInt16 = 2, tail: [UInt32], suffixRoots: UInt32 = 0, magicEntries: UInt32 = 0,
                        aliasCount: UInt32 = 0) -> [UInt8] {
        var words: [UInt32] = [UInt32(1) << 16 | UInt32(version), 40, 44, 48, 52, 60, 64, 76, 80, 84]
        words += [aliasCount, 0, 0, suffixRoots, 88, 0, magicEntries, 16, 88, 0, 0, 0] + tail
        return words.flatMap { w in [UInt8(w >> 24), UInt8(w >> 16 & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w & 0xFF)] }
    }

    @Test func craftedLoopsAndBoundsAreRefused() {
        let type = Array("application/x-crafted".utf8) + [0, 0, 0]
        let typeWords: [UInt32] = stride(from: 0, to: type.count - 3, by: 4).map { (i: Int) -> UInt32 in
            type[i..<(i + 4)].reduce(UInt32(0)) { word, byte in word << 8 | UInt32(byte) }
        }
        // A suffix node whose only child is itself.
        let suffixLoop = MimeCacheHostileTests.crafted(tail: [UInt32(UInt8(ascii: "a")), 1, 88], suffixRoots: 1)
        // A magic entry whose matchlet is its own child (the type name follows the matchlet).
        let magicLoop = MimeCacheHostileTests.crafted(tail: [50, 136, 1, 104, 0, 1, 0, 0, 0, 0, 1, 104] + typeWords, magicEntries: 1)
        // The same entry without the loop is fine, and matches anything.
        let magicOK = MimeCacheHostileTests.crafted(tail: [50, 136, 1, 104, 0, 1, 0, 0, 0, 0, 0, 0] + typeWords, magicEntries: 1)
        let hugeCount = MimeCacheHostileTests.crafted(tail: [], aliasCount: 0xFFFF_FFFF)
        let version3 = MimeCacheHostileTests.crafted(version: 3, tail: [])
        for (name, bytes) in [("suffix loop", suffixLoop), ("magic loop", magicLoop), ("huge count", hugeCount), ("version", version3)] {
            #expect(throws: MimeCacheError.self, "\(name)") { try MimeCache(bytes: bytes, path: name) }
        }
        let cache = try? MimeCache(bytes: magicOK, path: "ok")
        #expect(cache != nil)
        if let cache {
            #expect([UInt8(1)].withUnsafeBufferPointer { cache.magic($0)?.type } == "application/x-crafted")
            MimeCacheHostileTests.exercise(cache)
        }
    }

    @Test func aDamagedCacheIsSkippedWithAProblem() throws {
        let fixture = MimeFixture()
        try fixture.install(#"<mime-type type="application/x-t-good"><glob pattern="*.good"/></mime-type>"#, level: 1)
        fixture.tree.writeBytes(fixture.mimeDir(0) + "/mime.cache", Array(try MimeCacheHostileTests.installed().prefix(5000)))
        let types = fixture.database()
        #expect(types.cacheCount == 1)
        #expect(types.problems.count == 1)
        #expect(types.problems.first?.contains("malformed") == true)
        #expect(types.contentType(forName: "a.good") == "application/x-t-good")
    }
}
