#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The registry's answers as the index stores them: valid while the mimeapps lists and the
/// `TryExec` programs are what they were when it was written.
struct ResolvedSnapshot: Sendable {
    /// ``RegistryModel/listsDigest`` of the lists the answers were resolved with.
    var listsDigest: UInt64
    /// Every `TryExec` program of an application entry, and whether it was found.
    var tryExec: [(program: String, found: Bool)]
    /// Scheme → handlers (the default first), sorted by scheme (bytes).
    var resolved: [(scheme: String, handlers: [String])]
    /// Every eligible effective entry, sorted by desktop ID (bytes).
    var effective: [(id: String, dir: Int, relativePath: String)]
}

/// An index file's buffer, owned (read in one call, freed with the last reference).
final class IndexBuffer: @unchecked Sendable {
    let raw: UnsafeRawBufferPointer
    private let storage: UnsafeMutableRawBufferPointer

    init(_ storage: UnsafeMutableRawBufferPointer, count: Int) {
        self.storage = storage
        self.raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<count])
    }

    deinit { storage.deallocate() }
}

extension RegistryIndexCodec {
    static func encodeResolved(_ s: ResolvedSnapshot, recordOffsets: [[String: (record: Int, exec: Int?)]],
                               into w: inout IndexByteWriter) {
        w.u64(s.listsDigest)
        w.u32(UInt32(s.tryExec.count))
        for t in s.tryExec {
            w.string(t.program)
            w.u8(t.found ? 1 : 0)
        }
        // The desktop IDs once, referred to by offset from the two tables.
        var idOffset: [String: Int] = [:]
        idOffset.reserveCapacity(s.effective.count)
        let poolStart = w.bytes.count
        w.u32(0)
        for e in s.effective {
            idOffset[e.id] = w.bytes.count
            w.string(e.id)
        }
        w.patch32(UInt32(w.bytes.count - poolStart - 4), at: poolStart)
        w.u32(UInt32(s.effective.count))
        for e in s.effective {
            let at = recordOffsets[e.dir][e.relativePath]
            w.u32(UInt32(idOffset[e.id]!))
            w.u32(UInt32(at?.record ?? 0))
            w.u32(UInt32(e.dir))
            w.u32(at?.exec.map(UInt32.init) ?? UInt32.max)
        }
        w.u32(UInt32(s.resolved.count))
        let rows = w.bytes.count
        for _ in s.resolved { w.u32(0) }
        for (i, r) in s.resolved.enumerated() {
            w.patch32(UInt32(w.bytes.count), at: rows + 4 * i)
            w.string(r.scheme)
            w.u32(UInt32(r.handlers.count))
            for h in r.handlers { w.u32(UInt32(idOffset[h] ?? 0)) }
        }
    }
}

/// The registry served straight from the index buffer, as long as nothing changed: lookups
/// binary-search the stored tables and decode only what they return, so a start-up with a valid
/// index builds no per-entry object at all. The first change (or a write such as
/// `setDefault`) turns it into the full model (``Registry`` does that, on the thread making
/// the change).
///
/// Every offset read from the buffer is checked against its bounds at use; a forged offset
/// gives "not found", never an out-of-bounds read.
final class FrozenIndex: @unchecked Sendable {
    let buffer: IndexBuffer
    let directories: [ApplicationsDirectory]
    let searchPath: [String]
    let listsDigest: UInt64
    let tryExec: [(program: String, found: Bool)]
    private let idCount: Int
    private let idTable: Int
    private let schemeCount: Int
    private let schemeTable: Int
    static let idRowSize = 16

    /// Reads the section at `offset` (just after the last record) and checks every reference in
    /// it: each ID row's string lies in the ID pool (in increasing order) and names the record it
    /// points to (`recordStarts`: every record's offset, ascending, from the pass that checked
    /// the signatures), and every handler of every scheme is one of those IDs. So a lookup can
    /// only return IDs of records whose files were just checked.
    init(buffer: IndexBuffer, at offset: Int, directories: [ApplicationsDirectory],
         searchPath: [String], recordStarts: [Int]) throws(IndexRejection) {
        self.buffer = buffer
        self.directories = directories
        self.searchPath = searchPath
        var r = IndexByteReader(buffer.raw, offset: offset)
        guard try r.u8() == 1 else { throw IndexRejection("no resolved section") }
        listsDigest = try r.u64()
        let t = try r.count(minimumSize: 6)
        var tryExec: [(program: String, found: Bool)] = []
        for _ in 0..<t {
            let p = try r.string()
            let f = try r.u8()
            guard f <= 1 else { throw IndexRejection("corrupt TryExec flag") }
            tryExec.append((p, f == 1))
        }
        self.tryExec = tryExec
        let pool = Int(try r.u32())
        let poolStart = r.offset
        try r.skip(pool)
        idCount = try r.count(minimumSize: FrozenIndex.idRowSize)
        idTable = r.offset
        try r.skip(idCount * FrozenIndex.idRowSize)
        schemeCount = try r.count(minimumSize: 4)
        schemeTable = r.offset
        try r.skip(schemeCount * 4)
        try validate(poolRange: poolStart..<(poolStart + pool), recordStarts: recordStarts)
    }

    private func validate(poolRange: Range<Int>, recordStarts: [Int]) throws(IndexRejection) {
        let raw = buffer.raw
        var previous = -1
        for i in 0..<idCount {
            let row = idTable + i * FrozenIndex.idRowSize
            let idOff = u32(row)
            guard idOff > previous, poolRange.contains(idOff), let id = view(at: idOff) else { throw IndexRejection("corrupt ID table") }
            previous = idOff
            let recordOff = u32(row + 4)
            guard u32(row + 8) < directories.count, FrozenIndex.contains(recordStarts, recordOff),
                  let rel = view(at: recordOff + 4), rel.count == id.count else { throw IndexRejection("corrupt ID table") }
            // The ID is the record's path with `/` turned into `-`.
            for k in 0..<rel.count {
                let b = rel[k] == UInt8(ascii: "/") ? UInt8(ascii: "-") : rel[k]
                guard b == id[k] else { throw IndexRejection("corrupt ID table") }
            }
        }
        var lastScheme: UnsafeRawBufferPointer? = nil
        for i in 0..<schemeCount {
            var r = IndexByteReader(raw)
            try r.seek(u32(schemeTable + 4 * i))
            let scheme = try r.stringBytes()
            if let last = lastScheme {
                let c = FrozenIndex.compare(last, UnsafeBufferPointer(start: scheme.baseAddress?.assumingMemoryBound(to: UInt8.self), count: scheme.count))
                guard c < 0 else { throw IndexRejection("schemes out of order") }
            }
            lastScheme = scheme
            let n = try r.count(minimumSize: 4)
            guard n > 0 else { throw IndexRejection("a scheme without handlers") }
            for _ in 0..<n {
                guard rowIndex(ofIDAt: Int(try r.u32())) != nil else { throw IndexRejection("a handler that is not an entry") }
            }
        }
    }

    /// Whether the ascending `starts` holds `value`.
    private static func contains(_ starts: [Int], _ value: Int) -> Bool {
        var lo = 0
        var hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] == value { return true }
            if starts[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return false
    }

    /// The ID row whose string is at `offset` (rows are in increasing offset order).
    private func rowIndex(ofIDAt offset: Int) -> Int? {
        var lo = 0
        var hi = idCount
        while lo < hi {
            let mid = (lo + hi) / 2
            let v = u32(idTable + mid * FrozenIndex.idRowSize)
            if v == offset { return mid }
            if v < offset { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    private func u32(_ at: Int) -> Int { Int(buffer.raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }

    /// The string at `offset`, as a view, or nil when the offset does not hold one.
    private func view(at offset: Int) -> UnsafeRawBufferPointer? {
        var r = IndexByteReader(buffer.raw)
        guard (try? r.seek(offset)) != nil else { return nil }
        return try? r.stringBytes()
    }

    private func string(at offset: Int) -> String? {
        view(at: offset).flatMap(IndexByteReader.makeString)
    }

    private static func compare(_ v: UnsafeRawBufferPointer, _ key: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(v.count, key.count)
        let c = n == 0 ? 0 : Int(memcmp(v.baseAddress!, key.baseAddress!, n))
        return c != 0 ? c : v.count - key.count
    }

    /// Binary search over `count` rows whose key string offset is at `row(i)`.
    private func search(_ key: String, count: Int, keyOffset: (Int) -> Int) -> Int? {
        var key = key
        return key.withUTF8 { k -> Int? in
            var lo = 0
            var hi = count
            while lo < hi {
                let mid = (lo + hi) / 2
                guard let v = view(at: keyOffset(mid)) else { return nil }
                let c = FrozenIndex.compare(v, k)
                if c == 0 { return mid }
                if c < 0 { lo = mid + 1 } else { hi = mid }
            }
            return nil
        }
    }

    func resolution(forScheme scheme: String) -> HandlerResolution {
        guard let i = search(scheme, count: schemeCount, keyOffset: { u32(schemeTable + 4 * $0) }) else { return .none }
        var r = IndexByteReader(buffer.raw)
        guard (try? r.seek(u32(schemeTable + 4 * i))) != nil, (try? r.stringBytes()) != nil,
              let n = try? r.count(minimumSize: 4) else { return .none }
        var handlers: [String] = []
        handlers.reserveCapacity(n)
        for _ in 0..<n {
            guard let off = try? r.u32(), let id = string(at: Int(off)) else { return .none }
            handlers.append(id)
        }
        return handlers.isEmpty ? .none : HandlerResolution(defaultHandler: handlers[0], handlers: handlers)
    }

    /// Every scheme with a handler, sorted.
    var schemes: [String] {
        (0..<schemeCount).compactMap { string(at: u32(schemeTable + 4 * $0)) }
    }

    private func record(row i: Int) -> AppFileRecord? {
        let base = idTable + i * FrozenIndex.idRowSize
        let dir = u32(base + 8)
        guard dir < directories.count else { return nil }
        var r = IndexByteReader(buffer.raw)
        guard (try? r.seek(u32(base + 4))) != nil, (try? r.skip(4)) != nil else { return nil }
        return try? RegistryIndexCodec.decodeRecord(&r, directory: directories[dir], searchPath: searchPath)
    }

    /// The eligible effective entry with this ID, decoded from its record.
    func entry(id: String) -> DesktopEntry? {
        guard let i = search(id, count: idCount, keyOffset: { u32(idTable + $0 * FrozenIndex.idRowSize) }) else { return nil }
        guard let rec = record(row: i), rec.id == id else { return nil }
        return rec.eligibleEntry
    }

    /// The eligible entries whose `Exec` program has the base name `base` (compared in the
    /// buffer; only those are decoded).
    func entries(withProgramBaseName base: [UInt8]) -> [DesktopEntry] {
        var result: [DesktopEntry] = []
        for i in 0..<idCount {
            let exec = u32(idTable + i * FrozenIndex.idRowSize + 12)
            guard exec != Int(UInt32.max), let v = view(at: exec) else { continue }
            let matches = v.count >= base.count && !base.isEmpty
                && v[(v.count - base.count)...].elementsEqual(base)
                && (v.count == base.count || v[v.count - base.count - 1] == UInt8(ascii: "/"))
            if matches, let e = record(row: i)?.eligibleEntry { result.append(e) }
        }
        return result
    }

    /// Whether every `TryExec` program is found (or not) as it was when the index was written.
    func tryExecUnchanged() -> Bool {
        tryExec.allSatisfy { (ProgramLookup.find($0.program, searchPath: searchPath) != nil) == $0.found }
    }
}
