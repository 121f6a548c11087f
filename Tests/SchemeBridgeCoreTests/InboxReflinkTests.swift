import Foundation
import LinuxSystem
import Testing
@testable import SchemeBridgeCore

/// The Inbox copy on a file system that has reflinks: XFS in a loop image the test makes (root,
/// `mkfs.xfs` from xfsprogs, which `make deps` installs). A reflink shares exactly the range that
/// was charged — never the bytes a source gained after its size was checked — and shares, not
/// copies (the disk's free space barely moves).
@Suite(.serialized) struct InboxReflinkTests {
    /// Runs a program, failing the test with its output when it fails.
    func run(_ argv: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(p.terminationStatus == 0, "\(argv.joined(separator: " ")): \(text)")
    }

    /// An XFS file system with reflinks mounted under `tree`; its mount point.
    func reflinkFileSystem(_ tree: XDGTree) throws -> String {
        let image = tree.root + "/xfs.img", mountPoint = tree.root + "/mnt"
        #expect(mkdir(mountPoint, 0o700) == 0)
        try run(["truncate", "-s", "400M", image])
        try run(["mkfs.xfs", "-q", "-m", "reflink=1", image])
        try run(["mount", "-o", "loop", image, mountPoint])
        return mountPoint
    }

    func freeBytes(_ path: String) -> Int64 {
        var s = statvfs()
        _ = statvfs(path, &s)
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }

    /// A file of `megabytes` MiB of data (each MiB its own byte value), opened for reading.
    func source(_ path: String, megabytes: Int) throws -> Int32 {
        let out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(out >= 0)
        for m in 0..<megabytes {
            let chunk = [UInt8](repeating: UInt8(m & 0xff), count: 1 << 20)
            try #require(write(out, chunk, chunk.count) == chunk.count)
        }
        fsync(out)
        close(out)
        return open(path, O_RDONLY | O_CLOEXEC)
    }

    @Test func aReflinkSharesOnlyTheChargedRange() throws {
        let tree = XDGTree()
        let mnt = try reflinkFileSystem(tree)
        defer { _ = umount2(mnt, Int32(MNT_DETACH)) }
        // 64 MiB were charged; the caller's file has 128 MiB by the time it is copied.
        let fd = try source(mnt + "/grown.bin", megabytes: 128)
        defer { close(fd) }
        let out = open(mnt + "/copy.bin", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer { close(out) }
        let before = freeBytes(mnt)
        #expect(FileDescriptor.lending(fd) { source in FileDescriptor.lending(out) { Inbox.copy(source, to: $0, length: 64 << 20) } } == 0)
        fsync(out)
        var st = stat()
        #expect(fstat(out, &st) == 0 && st.st_size == 64 << 20, "the copy holds \(st.st_size) bytes, 64 MiB were charged")
        let used = before - freeBytes(mnt)
        print("MEASURE reflink of 64 MiB: \(used / 1024) KiB of the disk used")
        #expect(used < 8 << 20, "a reflink shares the blocks; \(used) bytes were used")
        // The last charged MiB is the source's 64th; nothing of the 65th.
        var last = [UInt8](repeating: 0, count: 2)
        #expect(pread(out, &last, 2, off_t((64 << 20) - 1)) == 1 && last[0] == 63)
    }

    @Test func aDocumentPlacedOnAReflinkFileSystemIsSharedAndReadOnly() throws {
        let tree = XDGTree()
        let mnt = try reflinkFileSystem(tree)
        defer { _ = umount2(mnt, Int32(MNT_DETACH)) }
        let fd = try source(mnt + "/doc.bin", megabytes: 64)
        defer { close(fd) }
        let inbox = Inbox(root: mnt + "/inbox")
        var limits = InboxLimits(inboxBytes: 1 << 30, retention: 60)
        limits.minimumFreeBytes = 0
        let before = freeBytes(mnt)
        let path = try inbox.place(fd, name: "doc.bin", desktopID: "viewer.desktop", caller: .caller("editor"), limits: limits)
        let used = before - freeBytes(mnt)
        #expect(used < 8 << 20, "a reflink shares the blocks; \(used) bytes were used")
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_size == 64 << 20 && st.st_mode & 0o777 == 0o444)
        // Charged at its size all the same: a second copy of it does not fit 96 MiB.
        limits.inboxBytes = 96 << 20
        #expect(throws: OpenFailure.self) { try inbox.place(fd, name: "doc.bin", desktopID: "viewer.desktop", caller: .caller("editor"), limits: limits) }
    }
}
