import Glibc
import LinuxSystem
import Synchronization

/// The registry's answers as the index stores them: valid while the mimeapps lists and the
/// `TryExec` programs are what they were when it was written.
struct ResolvedSnapshot: Sendable {
    /// ``RegistryModel/listsDigest`` of the lists the answers were resolved with.
    var listsDigest: UInt64
    /// Every `TryExec` program of an application entry, and whether it was found.
    var tryExec: [(program: String, found: Bool)]
    /// Scheme → handlers (the default first), sorted by scheme (bytes).
    var resolved: [(scheme: String, handlers: [String])]
    /// An eligible effective entry: its ID, where its file is, its `Exec` program, and whether
    /// it declares app links.
    typealias Row = (id: String, dir: Int, relativePath: String, execProgram: String?, appLinks: Bool)
    /// Every eligible effective entry, sorted by desktop ID (bytes).
    var effective: [Row]
    /// An application record an effective entry masks: the entry's row in ``effective``, and
    /// the record's directory (a lower one) and path there.
    typealias Masked = (row: Int, dir: Int, relativePath: String)
    /// Every application record that an effective entry masks, by row, highest directory first:
    /// what ``Registry/maskedEntries(id:)`` answers from the index (version 8).
    var masked: [Masked] = []

    /// Whether `entry` declares app links (`X-SchemeBridge-AppLinks`, not `Hidden`): what
    /// ``Registry/appLinkEntries()`` lists.
    static func declaresAppLinks(_ entry: DesktopEntry) -> Bool {
        !entry.hidden && entry.extensionKeys[AppLinkDeclaration.hostsKey] != nil
    }

    /// How `program` is found, as ``ProgramLookup`` finds it: a bare name (looked up in the
    /// search path; `directory` nil) or an absolute path (`directory` and the name after it,
    /// as `FileSystem.dirname`/`basename` split it); `nameStart` is where the name begins, in
    /// UTF-8 bytes. Nil for a program ``ProgramLookup/find(_:searchPath:)`` never finds (empty,
    /// or relative with a `/`).
    static func programName(_ program: String) -> (nameStart: Int, name: String, directory: String?)? {
        if program.isEmpty { return nil }
        if program.hasPrefix("/") {
            let name = FileSystem.basename(program)
            return (program.utf8.count - name.utf8.count, name, FileSystem.dirname(program))
        }
        if program.contains("/") { return nil }
        return (0, program, nil)
    }
}

extension RegistryIndexCodec {
    /// What the service asks while it starts, answered without the model (version 7): the ID
    /// rows of the entries that declare app links (ascending); the directories of absolute
    /// `Exec` programs (sorted); and the programs by name — (ID row, where the name starts in
    /// its program, its directory or `UInt32.max` for a bare name), sorted by name, directory
    /// and row.
    static func encodeStartupTables(_ s: ResolvedSnapshot, into w: inout IndexByteWriter) {
        let links = s.effective.indices.filter { s.effective[$0].appLinks }
        w.u32(UInt32(links.count))
        for i in links { w.u32(UInt32(i)) }
        var named: [(name: String, directory: String?, row: Int, start: Int)] = []
        for (i, e) in s.effective.enumerated() {
            guard let program = e.execProgram, let n = ResolvedSnapshot.programName(program) else { continue }
            named.append((n.name, n.directory, i, n.nameStart))
        }
        // Compared as bytes (as the reader does), not as Unicode strings.
        let directories = Set(named.compactMap { $0.directory.map { Array($0.utf8) } }).sorted { $0.lexicographicallyPrecedes($1) }
        var number: [[UInt8]: Int] = [:]
        for (k, d) in directories.enumerated() { number[d] = k }
        w.u32(UInt32(directories.count))
        for d in directories { w.string(String(decoding: d, as: UTF8.self)) }
        let rows = named.map { (name: Array($0.name.utf8), dir: $0.directory.map { number[Array($0.utf8)]! } ?? FrozenIndex.bareName,
                                row: $0.row, start: $0.start) }
            .sorted { a, b in
                if a.name != b.name { return a.name.lexicographicallyPrecedes(b.name) }
                return (a.dir, a.row) < (b.dir, b.row)
            }
        w.u32(UInt32(rows.count))
        for r in rows {
            w.u32(UInt32(r.row))
            w.u32(UInt32(r.start))
            w.u32(UInt32(r.dir))
        }
    }
}

/// An index file's bytes, owned (read in one call, freed with the last reference), and the
/// open file they were read from.
final class IndexBuffer: @unchecked Sendable {
    let raw: UnsafeRawBufferPointer
    let file: IndexFile
    private let storage: UnsafeMutableRawBufferPointer
    private let mapped: Bool

    /// At least this many bytes are pages of their own (``allocate(_:)``), not the heap's.
    static let mappedSize = 64 << 10

    init(_ storage: UnsafeMutableRawBufferPointer, count: Int, file: IndexFile, mapped: Bool = false) {
        self.storage = storage
        self.file = file
        self.mapped = mapped
        self.raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<count])
    }

    /// Room for `count` bytes: from the heap when small; a large one (the whole file, read at
    /// start and dropped once the tables are copied out) is mapped pages of its own, so its
    /// memory goes back to the system when it is freed. From malloc it stayed in the arena of
    /// the thread that read it (3 MiB of the service's resident size at 10,000 entries). Its
    /// pages are made in the `mmap` (`MAP_POPULATE`: the `read` fills all of them): faulted in
    /// one at a time by the copy, they were ~3% of a warm start's CPU at 10,000 entries.
    static func allocate(_ count: Int) -> (storage: UnsafeMutableRawBufferPointer, mapped: Bool)? {
        let size = max(count, 1)
        guard size >= mappedSize else { return (.allocate(byteCount: size, alignment: 16), false) }
        let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
        guard let p, p != MAP_FAILED else { return nil }
        return (UnsafeMutableRawBufferPointer(start: p, count: size), true)
    }

    deinit {
        if mapped { munmap(storage.baseAddress, storage.count) } else { storage.deallocate() }
    }
}

/// The index file that was read, kept open: a registry served from the index reads an entry's
/// record from it when asked (`pread`, bounds-checked), instead of keeping every record in
/// memory. A rename over the path does not change what this descriptor reads; a file changed
/// in place gives records that fail their checks, never an out-of-bounds read.
final class IndexFile: Sendable {
    /// The open index (closed with this value).
    let descriptor: FileDescriptor
    /// Its number, for `pread`.
    let fd: Int32

    init(_ descriptor: consuming FileDescriptor) {
        fd = descriptor.rawValue
        self.descriptor = descriptor
    }

    /// `count` bytes at `offset`, nil when the file does not have them (with `exact` false,
    /// whatever part of them it has).
    func read(_ count: Int, at offset: Int, exact: Bool = true) -> IndexBuffer? {
        guard count >= 0, offset >= 0 else { return nil }
        guard let (storage, mapped) = IndexBuffer.allocate(count) else { return nil }
        var got = 0
        while got < count {
            let n = pread(fd, storage.baseAddress! + got, count - got, off_t(offset + got))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        let buffer = IndexBuffer(storage, count: got, file: self, mapped: mapped)
        guard got == count || (!exact && got > 0) else { return nil }
        return buffer
    }

    /// The whole file, in one `read` (nil when it cannot be read or exceeds the size limit).
    func readAll() -> IndexBuffer? {
        guard let st = try? descriptor.status(), Int(st.st_size) <= RegistryIndexStore.maximumSize else { return nil }
        return read(Int(st.st_size), at: 0)
    }
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
        // The desktop IDs and programs once, referred to by offset from the tables (the only
        // part a registry served from the index keeps in memory).
        var idOffset: [String: Int] = [:]
        var execOffset: [String: Int] = [:]
        idOffset.reserveCapacity(s.effective.count)
        let poolStart = w.bytes.count
        w.u32(0)
        for e in s.effective {
            idOffset[e.id] = w.bytes.count
            w.string(e.id)
            if let program = e.execProgram {
                execOffset[e.id] = w.bytes.count
                w.string(program)
            }
        }
        w.patch32(UInt32(w.bytes.count - poolStart - 4), at: poolStart)
        w.u32(UInt32(s.effective.count))
        for e in s.effective {
            let at = recordOffsets[e.dir][e.relativePath]
            w.u32(UInt32(idOffset[e.id]!))
            w.u32(UInt32(at?.record ?? 0))
            w.u32(UInt32(e.dir))
            w.u32(execOffset[e.id].map(UInt32.init) ?? UInt32.max)
        }
        w.u32(UInt32(s.resolved.count))
        let rows = w.bytes.count
        for _ in s.resolved { w.u32(0) }
        encodeStartupTables(s, into: &w)
        // The masked records (version 8): (ID row, record offset, directory), by row and directory.
        w.u32(UInt32(s.masked.count))
        for m in s.masked {
            w.u32(UInt32(m.row))
            w.u32(UInt32(recordOffsets[m.dir][m.relativePath]?.record ?? 0))
            w.u32(UInt32(m.dir))
        }
        for (i, r) in s.resolved.enumerated() {
            w.patch32(UInt32(w.bytes.count), at: rows + 4 * i)
            w.string(r.scheme)
            w.u32(UInt32(r.handlers.count))
            for h in r.handlers { w.u32(UInt32(idOffset[h] ?? 0)) }
        }
    }
}

/// The registry served straight from the index, as long as nothing changed: lookups
/// binary-search the stored tables and decode only what they return, so a start-up with a valid
/// index builds no per-entry object at all. Only the tables stay in memory (IDs, programs, the
/// answers: ~75 bytes an entry); an entry's record is read from the open index file when it is
/// asked for. The first change (or a write such as `setDefault`) turns it into the full model
/// (``Registry`` does that, on the thread making the change).
///
/// Every offset is checked against its bounds at use; a forged offset gives "not found", never
/// an out-of-bounds read.
final class FrozenIndex: @unchecked Sendable {
    let file: IndexFile
    let directories: [ApplicationsDirectory]
    let searchPath: [String]
    let listsDigest: UInt64
    let tryExec: [(program: String, found: Bool)]
    /// The stored section, copied out of the file's buffer; `base` is its offset in the file
    /// (every offset in it is a file offset).
    private let tables: IndexBuffer
    private let base: Int
    private let idCount: Int
    private let idTable: Int
    private let schemeCount: Int
    private let schemeTable: Int
    static let idRowSize = 16
    /// The ID rows of the entries that declare app links (version 7).
    private let linkCount: Int
    private let linkTable: Int
    /// The directories of the absolute `Exec` programs, sorted (bytes).
    let programDirectories: [String]
    /// The programs by name: (ID row, where the name starts in the program, directory number
    /// or ``bareName``), sorted by name, directory and row.
    private let nameCount: Int
    private let nameTable: Int
    /// How many programs are bare names (looked up in the search path).
    private let bareNames: Int
    static let nameRowSize = 12
    /// The directory number of a bare program name.
    static let bareName = Int(UInt32.max)
    /// The records the effective entries mask (version 8): (ID row, record offset, directory),
    /// sorted by row and directory.
    private let maskedCount: Int
    private let maskedTable: Int
    static let maskedRowSize = 12
    /// Entries read so far (a lookup's handlers are each checked, so a scheme's entries are
    /// asked for again at every call): read and decoded once. Only IDs that are in the table
    /// are kept, so callers naming IDs cannot grow it past the number of entries.
    private let entries = Mutex<[String: DesktopEntry]>([:])
    /// Answers read so far, likewise (only schemes in the table).
    private let answers = Mutex<[String: HandlerResolution]>([:])

    /// Reads the section at `offset` (just after the last record) and checks every reference in
    /// it: each ID row's string lies in the pool (in increasing order) and names the record it
    /// points to (`recordStarts`: every record's offset, ascending, from the pass that checked
    /// the signatures) in its directory's block (`recordBlocks`, by directory), every handler of
    /// every scheme is one of those IDs, and every masked record is a record of the same ID in a
    /// lower directory. So a lookup can only return records whose files were just checked.
    init(buffer: IndexBuffer, at offset: Int, directories: [ApplicationsDirectory],
         searchPath: [String], recordStarts: [Int], recordBlocks: [Range<Int>]) throws(IndexRejection) {
        self.file = buffer.file
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
        linkCount = try r.count(minimumSize: 4)
        linkTable = r.offset
        try r.skip(linkCount * 4)
        let dirCount = try r.count(minimumSize: 5)
        var programDirectories: [String] = []
        programDirectories.reserveCapacity(dirCount)
        for _ in 0..<dirCount { programDirectories.append(try r.string()) }
        self.programDirectories = programDirectories
        nameCount = try r.count(minimumSize: FrozenIndex.nameRowSize)
        nameTable = r.offset
        try r.skip(nameCount * FrozenIndex.nameRowSize)
        maskedCount = try r.count(minimumSize: FrozenIndex.maskedRowSize)
        maskedTable = r.offset
        try r.skip(maskedCount * FrozenIndex.maskedRowSize)
        try FrozenIndex.validate(buffer.raw, poolRange: poolStart..<(poolStart + pool), idCount: idCount, idTable: idTable,
                                 schemeCount: schemeCount, schemeTable: schemeTable, recordStarts: recordStarts, recordBlocks: recordBlocks)
        try FrozenIndex.validateMasked(buffer.raw, idTable: idTable, idCount: idCount, maskedCount: maskedCount, maskedTable: maskedTable,
                                       recordStarts: recordStarts, recordBlocks: recordBlocks)
        bareNames = try FrozenIndex.validateStartupTables(buffer.raw, idCount: idCount, idTable: idTable, linkCount: linkCount,
                                                          linkTable: linkTable, directories: programDirectories,
                                                          nameCount: nameCount, nameTable: nameTable)
        base = poolStart
        let section = UnsafeRawBufferPointer(rebasing: buffer.raw[poolStart...])
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(section.count, 1), alignment: 16)
        copy.copyMemory(from: section)
        tables = IndexBuffer(copy, count: section.count, file: buffer.file)
    }

    /// The string at file offset `offset` of `raw` (whose first byte is at file offset `base`),
    /// as a view; nil unless its length, bytes and NUL lie inside.
    private static func view(_ raw: UnsafeRawBufferPointer, base: Int, at offset: Int) -> UnsafeRawBufferPointer? {
        let at = offset - base
        guard at >= 0, at <= raw.count - 4 else { return nil }
        let n = Int(raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        guard n <= raw.count - at - 5, raw[at + 4 + n] == 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: raw[(at + 4)..<(at + 4 + n)])
    }

    private static func u32(_ raw: UnsafeRawBufferPointer, base: Int, _ offset: Int) -> Int {
        Int(raw.loadUnaligned(fromByteOffset: offset - base, as: UInt32.self))
    }

    private static func validate(_ raw: UnsafeRawBufferPointer, poolRange: Range<Int>, idCount: Int, idTable: Int,
                                 schemeCount: Int, schemeTable: Int, recordStarts: [Int], recordBlocks: [Range<Int>]) throws(IndexRejection) {
        var previous = -1
        for i in 0..<idCount {
            let row = idTable + i * idRowSize
            let idOff = u32(raw, base: 0, row)
            guard idOff > previous, poolRange.contains(idOff), let id = view(raw, base: 0, at: idOff) else {
                throw IndexRejection("corrupt ID table")
            }
            previous = idOff
            guard isRecord(raw, at: u32(raw, base: 0, row + 4), in: u32(raw, base: 0, row + 8), of: id,
                           recordStarts: recordStarts, recordBlocks: recordBlocks) else { throw IndexRejection("corrupt ID table") }
            let exec = u32(raw, base: 0, row + 12)
            guard exec == Int(UInt32.max) || (poolRange.contains(exec) && view(raw, base: 0, at: exec) != nil) else {
                throw IndexRejection("corrupt ID table")
            }
        }
        var lastScheme: UnsafeRawBufferPointer? = nil
        for i in 0..<schemeCount {
            var r = IndexByteReader(raw)
            try r.seek(u32(raw, base: 0, schemeTable + 4 * i))
            let scheme = try r.stringBytes()
            if let last = lastScheme {
                guard compare(last, scheme) < 0 else { throw IndexRejection("schemes out of order") }
            }
            lastScheme = scheme
            let n = try r.count(minimumSize: 4)
            guard n > 0 else { throw IndexRejection("a scheme without handlers") }
            for _ in 0..<n {
                guard rowIndex(raw, base: 0, idTable: idTable, idCount: idCount, ofIDAt: Int(try r.u32())) != nil else {
                    throw IndexRejection("a handler that is not an entry")
                }
            }
        }
    }

    /// Whether a record starts at `offset`, in directory `dir`'s block, and its path makes the
    /// desktop ID `id` (the path with `/` turned into `-`).
    private static func isRecord(_ raw: UnsafeRawBufferPointer, at offset: Int, in dir: Int, of id: UnsafeRawBufferPointer,
                                 recordStarts: [Int], recordBlocks: [Range<Int>]) -> Bool {
        guard dir < recordBlocks.count, recordBlocks[dir].contains(offset), contains(recordStarts, offset),
              let rel = view(raw, base: 0, at: offset + 4), rel.count == id.count else { return false }
        for k in 0..<rel.count {
            let b = rel[k] == UInt8(ascii: "/") ? UInt8(ascii: "-") : rel[k]
            guard b == id[k] else { return false }
        }
        return true
    }

    /// Checks the masked table: rows in order of (ID row, directory), each a record of its ID
    /// row's desktop ID in a directory below that entry's.
    private static func validateMasked(_ raw: UnsafeRawBufferPointer, idTable: Int, idCount: Int, maskedCount: Int, maskedTable: Int,
                                       recordStarts: [Int], recordBlocks: [Range<Int>]) throws(IndexRejection) {
        var last: (row: Int, dir: Int) = (-1, 0)
        for i in 0..<maskedCount {
            let at = maskedTable + i * maskedRowSize
            let (row, offset, dir) = (u32(raw, base: 0, at), u32(raw, base: 0, at + 4), u32(raw, base: 0, at + 8))
            guard row < idCount, (last.row, last.dir) < (row, dir) else { throw IndexRejection("corrupt masked table") }
            last = (row, dir)
            let idRow = idTable + row * idRowSize
            guard dir > u32(raw, base: 0, idRow + 8), let id = view(raw, base: 0, at: u32(raw, base: 0, idRow)),
                  isRecord(raw, at: offset, in: dir, of: id, recordStarts: recordStarts, recordBlocks: recordBlocks) else {
                throw IndexRejection("corrupt masked table")
            }
        }
    }

    /// Checks the start-up tables: every app-link row and program row names an ID row
    /// (ascending, for app links), a program row's name is the end of that entry's program
    /// (all of it for a bare name; after a `/` and the row's directory otherwise), and the
    /// program rows are in order. Returns how many are bare names.
    private static func validateStartupTables(_ raw: UnsafeRawBufferPointer, idCount: Int, idTable: Int, linkCount: Int, linkTable: Int,
                                              directories: [String], nameCount: Int, nameTable: Int) throws(IndexRejection) -> Int {
        var previous = -1
        for i in 0..<linkCount {
            let row = u32(raw, base: 0, linkTable + 4 * i)
            guard row > previous, row < idCount else { throw IndexRejection("corrupt app-link table") }
            previous = row
        }
        var bare = 0
        var last: (name: UnsafeRawBufferPointer, dir: Int, row: Int)? = nil
        for i in 0..<nameCount {
            let at = nameTable + i * nameRowSize
            let (row, start, dir) = (u32(raw, base: 0, at), u32(raw, base: 0, at + 4), u32(raw, base: 0, at + 8))
            guard row < idCount else { throw IndexRejection("corrupt program table") }
            let exec = u32(raw, base: 0, idTable + row * idRowSize + 12)
            guard exec != Int(UInt32.max), let program = view(raw, base: 0, at: exec), start <= program.count else {
                throw IndexRejection("corrupt program table")
            }
            let name = UnsafeRawBufferPointer(rebasing: program[start...])
            if dir == bareName {
                guard start == 0 else { throw IndexRejection("corrupt program table") }
                bare += 1
            } else {
                // As `FileSystem.dirname` gives it: "/" for a program in the root.
                guard dir < directories.count, start >= 1, program[start - 1] == UInt8(ascii: "/"),
                      directories[dir].utf8.elementsEqual(UnsafeRawBufferPointer(rebasing: program[0..<max(start - 1, 1)])) else {
                    throw IndexRejection("corrupt program table")
                }
            }
            if let last {
                let c = compare(last.name, name)
                guard c < 0 || (c == 0 && (last.dir, last.row) < (dir, row)) else { throw IndexRejection("programs out of order") }
            }
            last = (name, dir, row)
        }
        return bare
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
    private static func rowIndex(_ raw: UnsafeRawBufferPointer, base: Int, idTable: Int, idCount: Int, ofIDAt offset: Int) -> Int? {
        var lo = 0
        var hi = idCount
        while lo < hi {
            let mid = (lo + hi) / 2
            let v = u32(raw, base: base, idTable + mid * idRowSize)
            if v == offset { return mid }
            if v < offset { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        let c = n == 0 ? 0 : Int(memcmp(a.baseAddress!, b.baseAddress!, n))
        return c != 0 ? c : a.count - b.count
    }

    // MARK: lookups (on the copied tables)

    private func u32(_ offset: Int) -> Int { FrozenIndex.u32(tables.raw, base: base, offset) }

    private func view(at offset: Int) -> UnsafeRawBufferPointer? { FrozenIndex.view(tables.raw, base: base, at: offset) }

    private func string(at offset: Int) -> String? {
        view(at: offset).flatMap(IndexByteReader.makeString)
    }

    /// Binary search over `count` rows whose key string is at file offset `keyOffset(i)`.
    private func search(_ key: String, count: Int, keyOffset: (Int) -> Int) -> Int? {
        var key = key
        return key.withUTF8 { k -> Int? in
            let keyView = UnsafeRawBufferPointer(k)
            var lo = 0
            var hi = count
            while lo < hi {
                let mid = (lo + hi) / 2
                guard let v = view(at: keyOffset(mid)) else { return nil }
                let c = FrozenIndex.compare(v, keyView)
                if c == 0 { return mid }
                if c < 0 { lo = mid + 1 } else { hi = mid }
            }
            return nil
        }
    }

    func resolution(forScheme scheme: String) -> HandlerResolution {
        if let known = answers.withLock({ $0[scheme] }) { return known }
        let answer = readResolution(forScheme: scheme)
        if !answer.handlers.isEmpty { answers.withLock { $0[scheme] = answer } }
        return answer
    }

    private func readResolution(forScheme scheme: String) -> HandlerResolution {
        guard let i = search(scheme, count: schemeCount, keyOffset: { u32(schemeTable + 4 * $0) }) else { return .none }
        var r = IndexByteReader(tables.raw)
        guard (try? r.seek(u32(schemeTable + 4 * i) - base)) != nil, (try? r.stringBytes()) != nil,
              let n = try? r.count(minimumSize: 4) else { return .none }
        var handlers: [DesktopID] = []
        handlers.reserveCapacity(n)
        for _ in 0..<n {
            guard let off = try? r.u32(), let id = string(at: Int(off)) else { return .none }
            handlers.append(DesktopID(fileName: id))
        }
        return handlers.isEmpty ? .none : HandlerResolution(defaultHandler: handlers[0], handlers: handlers)
    }

    /// Every scheme with a handler, sorted.
    var schemes: [String] {
        (0..<schemeCount).compactMap { string(at: u32(schemeTable + 4 * $0)) }
    }

    /// The record of ID row `i`, read from the file (one `pread` for most records).
    private func record(row i: Int) -> AppFileRecord? {
        let row = idTable + i * FrozenIndex.idRowSize
        return record(at: u32(row + 4), dir: u32(row + 8))
    }

    /// The record at file offset `offset`, of directory `dir`.
    private func record(at offset: Int, dir: Int) -> AppFileRecord? {
        guard dir < directories.count, var chunk = file.read(1024, at: offset, exact: false), chunk.raw.count >= 4 else { return nil }
        let length = Int(chunk.raw.loadUnaligned(as: UInt32.self))
        guard length >= 4, length <= FileSystem.maximumFileSize else { return nil }
        if length > chunk.raw.count {
            guard let whole = file.read(length, at: offset) else { return nil }
            chunk = whole
        }
        var r = IndexByteReader(UnsafeRawBufferPointer(rebasing: chunk.raw[0..<length]), offset: 4)
        return try? RegistryIndexCodec.decodeRecord(&r, directory: directories[dir], searchPath: searchPath)
    }

    /// The eligible effective entry with this ID, decoded from its record (once).
    func entry(id: String) -> DesktopEntry? {
        if let known = entries.withLock({ $0[id] }) { return known }
        guard let i = search(id, count: idCount, keyOffset: { u32(idTable + $0 * FrozenIndex.idRowSize) }),
              let rec = record(row: i), rec.id == id, let entry = rec.eligibleEntry else { return nil }
        entries.withLock { $0[id] = entry }
        return entry
    }

    /// The application entries that the effective entry with this ID masks (same ID, lower
    /// directories; eligible or not), highest first, decoded from their records (empty when it
    /// masks nothing); nil for an ID that is not an eligible effective entry (the index keeps no
    /// table of what those mask).
    func maskedEntries(id: String) -> [DesktopEntry]? {
        guard let row = search(id, count: idCount, keyOffset: { u32(idTable + $0 * FrozenIndex.idRowSize) }) else { return nil }
        var lo = 0
        var hi = maskedCount
        while lo < hi {
            let mid = (lo + hi) / 2
            if u32(maskedTable + mid * FrozenIndex.maskedRowSize) < row { lo = mid + 1 } else { hi = mid }
        }
        var out: [DesktopEntry] = []
        while lo < maskedCount, u32(maskedTable + lo * FrozenIndex.maskedRowSize) == row {
            let at = maskedTable + lo * FrozenIndex.maskedRowSize
            if let rec = record(at: u32(at + 4), dir: u32(at + 8)), rec.id == id, case .application(let e, _) = rec.state { out.append(e) }
            lo += 1
        }
        return out
    }

    /// The desktop IDs of the entries that declare app links, in ID order.
    func appLinkIDs() -> [String] {
        (0..<linkCount).compactMap { i in id(row: u32(linkTable + 4 * i)) }
    }

    private func id(row: Int) -> String? { string(at: u32(idTable + row * FrozenIndex.idRowSize)) }

    private func execOffset(row: Int) -> Int { u32(idTable + row * FrozenIndex.idRowSize + 12) }

    private func nameRow(_ i: Int) -> (row: Int, start: Int, dir: Int) {
        let at = nameTable + i * FrozenIndex.nameRowSize
        return (u32(at), u32(at + 4), u32(at + 8))
    }

    /// The name of program row `i`: its program from where the name starts.
    private func name(ofNameRow i: Int) -> UnsafeRawBufferPointer? {
        let r = nameRow(i)
        guard let program = view(at: execOffset(row: r.row)), r.start <= program.count else { return nil }
        return UnsafeRawBufferPointer(rebasing: program[r.start...])
    }

    /// The program rows named `name` (bytes), in directory `dir` when given.
    private func nameRows(_ name: String, dir: Int?) -> [Int] {
        var key = name
        return key.withUTF8 { k -> [Int] in
            let keyView = UnsafeRawBufferPointer(k)
            var lo = 0
            var hi = nameCount
            while lo < hi {
                let mid = (lo + hi) / 2
                guard let v = self.name(ofNameRow: mid) else { return [] }
                let c = FrozenIndex.compare(v, keyView)
                if c < 0 || (c == 0 && nameRow(mid).dir < (dir ?? 0)) { lo = mid + 1 } else { hi = mid }
            }
            var out: [Int] = []
            while lo < nameCount, let v = self.name(ofNameRow: lo), FrozenIndex.compare(v, keyView) == 0 {
                if let dir, nameRow(lo).dir != dir { break }
                out.append(lo)
                lo += 1
            }
            return out
        }
    }

    /// The IDs of the entries whose `Exec` program has base name `name` (a bare name, or the
    /// part of an absolute path after its last `/`): a binary search, no map of every entry.
    func ids(runningProgramNamed name: String) -> [String] {
        nameRows(name, dir: nil).compactMap { id(row: nameRow($0).row) }
    }

    /// The entries (ID and `Exec` program) whose program ``ProgramLookup/mayBeSymlink(_:searchPath:listings:)``
    /// says may be a symbolic link, found from the links instead of from every entry: each
    /// directory of an absolute program, and the search path when some program is a bare name,
    /// is listed once, and each link's name is looked up among the programs. A directory that
    /// cannot be listed may hold any of them: every program there is taken.
    func programsThatMayBeLinks(searchPath: [String]) -> [(id: String, program: String)] {
        var listings: [String: Set<String>?] = [:]
        var rows: [Int] = []
        for (k, directory) in programDirectories.enumerated() {
            if let links = ProgramLookup.linkNames(in: directory, listings: &listings) {
                rows += nameRows("", dir: k)  // `/dir/`: no name, maybe a link
                for name in links { rows += nameRows(name, dir: k) }
            } else {
                rows += (0..<nameCount).filter { nameRow($0).dir == k }
            }
        }
        if bareNames > 0 {
            let lists = searchPath.map { ProgramLookup.linkNames(in: $0, listings: &listings) }
            if lists.contains(where: { $0 == nil }) {
                rows += (0..<nameCount).filter { nameRow($0).dir == FrozenIndex.bareName }
            } else {
                var seen = Set<String>()
                for case let links? in lists {
                    for name in links where seen.insert(name).inserted { rows += nameRows(name, dir: FrozenIndex.bareName) }
                }
            }
        }
        return rows.compactMap { i in
            let row = nameRow(i).row
            guard let id = id(row: row), let program = string(at: execOffset(row: row)) else { return nil }
            return (id, program)
        }
    }

    /// Whether every `TryExec` program is found (or not) as it was when the index was written.
    func tryExecUnchanged() -> Bool {
        tryExec.allSatisfy { (ProgramLookup.find($0.program, searchPath: searchPath) != nil) == $0.found }
    }
}
