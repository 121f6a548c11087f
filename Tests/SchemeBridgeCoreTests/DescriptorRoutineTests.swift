import CLinux
import Foundation
import LinuxSystem
import Testing

/// The one no-follow open (``FileDescriptor/openNoFollow(_:_:)``) and the one copy routine
/// (``FileDescriptor/copy(to:offset:limit:)``) every copy in the service and the command line
/// goes through (Inbox, pasteboard data, outbox, "Save to…", `pick`, `pasteboard read`).
@Suite struct DescriptorRoutineTests {
    // MARK: the no-follow open

    @Test func aSymlinkIsNeverFollowed() throws {
        let tree = XDGTree()
        let target = tree.root + "/target.txt", link = tree.root + "/link.txt"
        tree.write(target, "precious")
        #expect(symlink(target, link) == 0)

        #expect(throws: Errno(ELOOP)) { _ = try FileDescriptor.openNoFollow(link) }
        #expect(throws: Errno(ELOOP), "truncating through a link would empty its target") {
            _ = try FileDescriptor.openNoFollow(link, .createOrTruncate(permissions: 0o600))
        }
        #expect(throws: Errno(EEXIST), "a link is something there") { _ = try FileDescriptor.openNoFollow(link, .createNew(permissions: 0o600)) }
        // A dangling link is not created through either.
        let dangling = tree.root + "/dangling", nowhere = tree.root + "/nowhere"
        #expect(symlink(nowhere, dangling) == 0)
        #expect(throws: Errno(EEXIST)) { _ = try FileDescriptor.openNoFollow(dangling, .createNew(permissions: 0o600)) }
        #expect(throws: Errno(ELOOP)) { _ = try FileDescriptor.openNoFollow(dangling, .createOrTruncate(permissions: 0o600)) }
        #expect(access(nowhere, F_OK) != 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")

        // The file itself opens, and what it reads is the file.
        let fd = try FileDescriptor.openNoFollow(target)
        #expect(try fd.status().st_mode & S_IFMT == S_IFREG)
        #expect(fd.kernelPath().map { String(decoding: $0, as: UTF8.self) } == realPath(target))
        let made = try FileDescriptor.openNoFollow(tree.root + "/new.txt", .createNew(permissions: 0o640))
        #expect(try made.status().st_mode & 0o777 == 0o640)
    }

    @Test func aFIFOWithoutAWriterNeverBlocksTheOpen() throws {
        let tree = XDGTree()
        let fifo = tree.root + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened on a thread of its own: were the open to block, the test would see it time out
        // (after a generous ceiling) rather than hang.
        let reading = onThread { () -> Result<(mode: mode_t, read: Int), Errno> in
            Result(catching: { () throws(Errno) -> (mode: mode_t, read: Int) in
                let fd = try FileDescriptor.openNoFollow(fifo)
                var byte: UInt8 = 0
                let n = read(fd.rawValue, &byte, 1)  // no writer: the end at once, never a wait
                return (try fd.status().st_mode & S_IFMT, n)
            })
        }
        let writing = onThread { () -> Result<Int32, Errno> in
            Result(catching: { () throws(Errno) -> Int32 in _ = try FileDescriptor.openNoFollow(fifo, .createOrTruncate(permissions: 0o600)); return 0 })
        }
        let readResult = try #require(reading.wait(unblocking: fifo), "opening a FIFO for reading blocked")
        let opened = try readResult.get()
        #expect(opened.mode == S_IFIFO && opened.read == 0)
        let writeResult = try #require(writing.wait(unblocking: fifo), "opening a FIFO for writing blocked")
        #expect(throws: Errno(ENXIO), "no reader: refused at once") { try writeResult.get() }
    }

    // MARK: the copy routine

    @Test func aCopyStopsAtTheLimitOrTheEndAndStartsWhereItIsTold() throws {
        let tree = XDGTree()
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        tree.writeBytes(tree.root + "/source.bin", bytes)
        let source = try FileDescriptor.openNoFollow(tree.root + "/source.bin")

        func copied(offset: Int64?, limit: Int64 = .max) throws -> (count: Int64, bytes: [UInt8]) {
            let path = tree.root + "/out-\(UUID().uuidString)"
            let out = try FileDescriptor.openNoFollow(path, .createNew(permissions: 0o600))
            let n = try source.copy(to: out, offset: offset, limit: limit)
            return (n, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        let whole = try copied(offset: 0)
        #expect(whole.count == 10_000 && whole.bytes == bytes)
        let short = try copied(offset: 0, limit: 1234)
        #expect(short.count == 1234 && short.bytes == Array(bytes.prefix(1234)), "a limit below the size is a short copy")
        let tail = try copied(offset: 9000, limit: 5000)
        #expect(tail.count == 1000 && tail.bytes == Array(bytes.suffix(1000)), "the end of the source comes first")
        #expect(try copied(offset: 10_000).count == 0)
        #expect(try copied(offset: 0, limit: 0).count == 0)
        // The source's own position is left alone with an offset, and used and advanced without.
        #expect(lseek(source.rawValue, 0, SEEK_CUR) == 0)
        #expect(lseek(source.rawValue, 4000, SEEK_SET) == 4000)
        let fromHere = try copied(offset: nil, limit: 100)
        #expect(fromHere.bytes == Array(bytes[4000..<4100]))
        #expect(lseek(source.rawValue, 0, SEEK_CUR) == 4100)
        // Writes where the output is: a second copy appends.
        let path = tree.root + "/twice"
        let out = try FileDescriptor.openNoFollow(path, .createNew(permissions: 0o600))
        try source.copy(to: out, offset: 0, limit: 10)
        try source.copy(to: out, offset: 0, limit: 10)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == Array(bytes.prefix(10)) + Array(bytes.prefix(10)))
    }

    @Test func aLargeFileIsCopiedWholeToAFileAMemfdAndAPipe() throws {
        let tree = XDGTree()
        let size = 24 << 20  // past every method's buffer (the last resort's is 1 MiB)
        var bytes = [UInt8](repeating: 0, count: size)
        var x: UInt32 = 2_463_534_242
        for i in 0..<size { x ^= x << 13; x ^= x >> 17; x ^= x << 5; bytes[i] = UInt8(truncatingIfNeeded: x) }
        tree.writeBytes(tree.root + "/large.bin", bytes)
        let source = try FileDescriptor.openNoFollow(tree.root + "/large.bin")

        let file = try FileDescriptor.openNoFollow(tree.root + "/copy.bin", .createNew(permissions: 0o600))
        #expect(try source.copy(to: file) == Int64(size))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: tree.root + "/copy.bin"))) == bytes)

        let memfd = FileDescriptor(owning: clinux_memfd("copy-test"))
        #expect(try source.copy(to: memfd) == Int64(size))
        #expect(try memfd.status().st_size == size)

        // Into a pipe that another thread drains (splice or sendfile, and short writes), then out
        // of that pipe's data again from a pipe (the input has no offset).
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let readEnd = FileDescriptor(owning: ends[0]), writeEnd = FileDescriptor(owning: ends[1])
        let drained = tree.root + "/drained.bin", readFD = ends[0]
        let reader = onThread { () -> Result<Int64, Errno> in
            Result(catching: { () throws(Errno) -> Int64 in
                let out = try FileDescriptor.openNoFollow(drained, .createNew(permissions: 0o600))
                return try FileDescriptor.lending(readFD) { (input) throws(Errno) in try input.copy(to: out, offset: nil) }
            })
        }
        #expect(try source.copy(to: writeEnd) == Int64(size))
        _ = consume writeEnd  // the end of the data for the reader
        let read = try #require(reader.wait(unblocking: nil))
        #expect(try read.get() == Int64(size))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: drained))) == bytes)
        _ = consume readEnd
    }

    @Test func whatIsNotARegularFileIsCopiedWhereItCanBeAndRefusedWhereNot() throws {
        let tree = XDGTree()
        let out = try FileDescriptor.openNoFollow(tree.root + "/out", .createNew(permissions: 0o600))
        // A directory cannot be read: the kernel's error, thrown.
        let directory = try FileDescriptor.open(tree.root, O_RDONLY | O_DIRECTORY)
        #expect(throws: Errno(EISDIR)) { try directory.copy(to: out) }
        // A character device without an end: as much as the limit asks.
        let zero = try FileDescriptor.open("/dev/zero", O_RDONLY)
        #expect(try zero.copy(to: out, offset: nil, limit: 3 << 20) == 3 << 20)
        #expect(try out.status().st_size == 3 << 20)
        // An output that cannot be written: thrown, not a short copy.
        let readOnly = try FileDescriptor.open("/dev/zero", O_RDONLY)
        #expect(throws: Errno.self) { try zero.copy(to: readOnly, offset: nil, limit: 10) }
    }

    // MARK: support

    private func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// Runs `body` on a thread of its own.
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Outcome<T> {
        let outcome = Outcome<T>()
        Thread.detachNewThread { outcome.finish(body()) }
        return outcome
    }
}

/// What a thread returns, waited for with a generous ceiling.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: T?

    func finish(_ v: T) {
        value = v
        done.signal()
    }

    /// The value; nil when the thread has not finished within 60 s (then a FIFO at `fifo` is
    /// opened at both ends so that a blocked open returns and the thread ends).
    func wait(unblocking fifo: String?) -> T? {
        if done.wait(timeout: .now() + 60) == .success { return value }
        if let fifo {
            let both = open(fifo, O_RDWR | O_NONBLOCK)
            _ = done.wait(timeout: .now() + 60)
            close(both)
        }
        return nil
    }
}
