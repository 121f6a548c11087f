import Glibc

/// The byte layer of the registry index file: a growable writer and a bounds-checked reader.
///
/// Integers are stored in the writing machine's byte order; the header's byte-order mark tells
/// a reader on another machine (or a forged file) apart, and such a file is refused, never
/// byte-swapped. Strings are a `UInt32` length, the UTF-8 bytes and a NUL (so a relative path
/// can be handed to `fstatat` straight from the buffer); the length excludes the NUL.
struct IndexByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }

    mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) }
    }

    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// An optional string: `UInt32.max` as the length stands for nil.
    mutating func optionalString(_ s: String?) {
        if let s { string(s) } else { u32(UInt32.max) }
    }

    mutating func signature(_ s: FileSignature) {
        u64(s.device)
        u64(s.inode)
        i64(s.size)
        i64(Int64(s.mtimeSeconds))
        i64(Int64(s.mtimeNanoseconds))
        i64(Int64(s.ctimeSeconds))
        i64(Int64(s.ctimeNanoseconds))
    }

    /// Overwrites 4 bytes at `offset` (a record's length).
    mutating func patch32(_ v: UInt32, at offset: Int) {
        withUnsafeBytes(of: v) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }

    /// Overwrites 8 bytes at `offset` (for the header's length and checksum).
    mutating func patch(_ v: UInt64, at offset: Int) {
        withUnsafeBytes(of: v) { raw in
            for i in 0..<8 { bytes[offset + i] = raw[i] }
        }
    }
}

/// Why an index file was not used. Every case makes the registry scan instead.
struct IndexRejection: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A cursor over an index buffer. Every read checks the remaining length first and throws
/// ``IndexRejection`` past the end, so a truncated or forged file can never read out of bounds.
struct IndexByteReader: ~Copyable {
    let base: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ base: UnsafeRawBufferPointer, offset: Int = 0) {
        self.base = base
        self.offset = offset
    }

    var remaining: Int { base.count - offset }

    /// Moves to `offset` (checked).
    mutating func seek(_ to: Int) throws(IndexRejection) {
        guard to >= 0, to <= base.count else { throw IndexRejection("an offset is out of bounds") }
        offset = to
    }

    /// Steps over `n` bytes (checked).
    mutating func skip(_ n: Int) throws(IndexRejection) {
        _ = try take(n)
    }

    private mutating func take(_ n: Int) throws(IndexRejection) -> Int {
        guard n >= 0, n <= remaining else { throw IndexRejection("truncated") }
        let at = offset
        offset += n
        return at
    }

    mutating func u8() throws(IndexRejection) -> UInt8 {
        base[try take(1)]
    }

    mutating func u32() throws(IndexRejection) -> UInt32 {
        base.loadUnaligned(fromByteOffset: try take(4), as: UInt32.self)
    }

    mutating func u64() throws(IndexRejection) -> UInt64 {
        base.loadUnaligned(fromByteOffset: try take(8), as: UInt64.self)
    }

    mutating func i64() throws(IndexRejection) -> Int64 { Int64(bitPattern: try u64()) }

    /// A count of items each taking at least `minimumSize` bytes: bounded by what is left, so
    /// a forged count cannot make the caller reserve or loop more than the file holds.
    mutating func count(minimumSize: Int) throws(IndexRejection) -> Int {
        let n = Int(try u32())
        guard n <= remaining / max(1, minimumSize) else { throw IndexRejection("a count exceeds the file") }
        return n
    }

    /// The bytes of a string (NUL excluded) as a view into the buffer, checked: the NUL is
    /// there and no other NUL is inside.
    mutating func stringBytes() throws(IndexRejection) -> UnsafeRawBufferPointer {
        let n = Int(try u32())
        return try stringBytes(length: n)
    }

    private mutating func stringBytes(length n: Int) throws(IndexRejection) -> UnsafeRawBufferPointer {
        guard n < Int(UInt32.max) else { throw IndexRejection("a string length is invalid") }
        let at = try take(n + 1)
        guard base[at + n] == 0 else { throw IndexRejection("a string is not terminated") }
        let view = UnsafeRawBufferPointer(rebasing: base[at..<(at + n)])
        if n > 0, memchr(view.baseAddress!, 0, n) != nil { throw IndexRejection("a string holds a NUL byte") }
        return view
    }

    /// A string from UTF-8 bytes, nil when they are not valid UTF-8 (ASCII, the common case,
    /// is checked with a plain loop; the rest by the standard library).
    static func makeString(_ view: UnsafeRawBufferPointer) -> String? {
        var ascii = true
        for b in view where b >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: view.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        return String(validating: view.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    mutating func string() throws(IndexRejection) -> String {
        let view = try stringBytes()
        guard let s = IndexByteReader.makeString(view) else { throw IndexRejection("a string is not UTF-8") }
        return s
    }

    mutating func optionalString() throws(IndexRejection) -> String? {
        let n = try u32()
        if n == UInt32.max { return nil }
        let view = try stringBytes(length: Int(n))
        guard let s = IndexByteReader.makeString(view) else { throw IndexRejection("a string is not UTF-8") }
        return s
    }

    /// A signature's bytes as a view into the buffer (``signature()`` decodes the same 56).
    mutating func signatureBytes() throws(IndexRejection) -> UnsafeRawPointer {
        base.baseAddress! + (try take(56))
    }

    mutating func signature() throws(IndexRejection) -> FileSignature {
        var s = FileSignature()
        s.device = try u64()
        s.inode = try u64()
        s.size = try i64()
        s.mtimeSeconds = Int(try i64())
        s.mtimeNanoseconds = Int(try i64())
        s.ctimeSeconds = Int(try i64())
        s.ctimeNanoseconds = Int(try i64())
        return s
    }
}

/// A fast 64-bit checksum of the index body (8 bytes a step, multiply-xor-rotate). It finds
/// corruption and truncation; it is not a defence against a forged file, which the per-file
/// and per-directory signatures are.
enum IndexChecksum {
    static func of(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
        let words = raw.count / 8
        var i = 0
        while i < words {
            let w = raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h = (h << 29) | (h >> 35)
            i += 1
        }
        var tail: UInt64 = 0
        for j in (words * 8)..<raw.count { tail = (tail << 8) | UInt64(raw[j]) }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
}
