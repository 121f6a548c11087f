import Foundation
import Testing
@testable import SchemeBridgeCore

/// ``Inbox/place(_:name:desktopID:caller:limits:)`` against its caps: the Inboxes' total, the
/// free space kept on the disk, a source that grows after it was charged.
@Suite struct InboxLimitTests {
    /// A file of `bytes` bytes under `tree`, opened for reading (the caller's descriptor).
    func source(_ tree: XDGTree, _ name: String, bytes: Int) -> Int32 {
        let path = tree.root + "/" + name
        tree.writeBytes(path, [UInt8](repeating: 0x62, count: bytes))
        return open(path, O_RDONLY | O_CLOEXEC)
    }

    func failure(_ body: () throws(OpenFailure) -> String) -> OpenFailure? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test func theInboxesTogetherAndTheDiskHaveCapsToo() throws {
        let tree = XDGTree()
        let inbox = Inbox(root: tree.root + "/inbox")
        var limits = InboxLimits(inboxBytes: 1000, retention: 60)
        limits.totalBytes = 1500
        let fd = source(tree, "a.bin", bytes: 600)
        defer { close(fd) }
        // Three callers, three apps: each copy fits its Inbox and its caller, the third not the total.
        _ = try inbox.place(fd, name: "a.bin", desktopID: "one.desktop", caller: "x", limits: limits)
        _ = try inbox.place(fd, name: "a.bin", desktopID: "two.desktop", caller: "y", limits: limits)
        let total = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: "z", limits: limits) }
        #expect(total?.kind == .quotaExceeded && total?.message.contains("4 × MaxInboxBytes") == true, "\(String(describing: total))")
        // The disk: whatever is free, a floor above it refuses the copy before a byte is written.
        limits.totalBytes = 1 << 40
        limits.minimumFreeBytes = 1 << 62
        let disk = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: "z", limits: limits) }
        #expect(disk?.kind == .quotaExceeded && disk?.message.contains("disk") == true, "\(String(describing: disk))")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: inbox.directory(for: "three.desktop"))) ?? [] == [])
        // Copies old enough to go make room, but only for a placement that happens: a refusal removes nothing.
        limits.totalBytes = 1500
        limits.grace = 0
        let refused = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: "z", limits: limits) }
        #expect(refused?.message.contains("disk") == true)
        let copies = { ["one", "two", "three"].flatMap { app in
            ((try? FileManager.default.contentsOfDirectory(atPath: inbox.directory(for: app + ".desktop"))) ?? []).map { app + "/" + $0 } } }
        #expect(copies().sorted() == ["one/a.bin", "two/a.bin"])
        limits.minimumFreeBytes = nil
        _ = try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: "z", limits: limits)
        #expect(copies().count == 2 && copies().contains("three/a.bin"), "\(copies())")
    }

    @Test func aCopyHoldsAtMostWhatWasCharged() throws {
        let tree = XDGTree()
        let fd = source(tree, "grow.bin", bytes: 100)
        defer { close(fd) }
        let out = open(tree.root + "/copy.bin", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer { close(out) }
        // The source grew to 300 bytes after 100 were charged: the copy (a reflink where the file
        // system can, else the data) keeps the first 100.
        let more = open(tree.root + "/grow.bin", O_WRONLY | O_APPEND | O_CLOEXEC)
        #expect(write(more, [UInt8](repeating: 0x63, count: 200), 200) == 200)
        close(more)
        #expect(Inbox.copy(fd, to: out, length: 100) == 0)
        var st = stat()
        #expect(fstat(out, &st) == 0 && st.st_size == 100)
    }
}
