import Foundation
import LinuxSystem
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
        _ = try inbox.place(fd, name: "a.bin", desktopID: "one.desktop", caller: .caller("x"), limits: limits)
        _ = try inbox.place(fd, name: "a.bin", desktopID: "two.desktop", caller: .caller("y"), limits: limits)
        let total = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: .caller("z"), limits: limits) }
        #expect(total?.kind == .quotaExceeded && total?.message.contains("4 × MaxInboxBytes") == true, "\(String(describing: total))")
        // The disk: whatever is free, a floor above it refuses the copy before a byte is written.
        limits.totalBytes = 1 << 40
        limits.minimumFreeBytes = 1 << 62
        let disk = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: .caller("z"), limits: limits) }
        #expect(disk?.kind == .quotaExceeded && disk?.message.contains("disk") == true, "\(String(describing: disk))")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: inbox.directory(for: "three.desktop"))) ?? [] == [])
        // Copies old enough to go make room, but only for a placement that happens: a refusal removes nothing.
        limits.totalBytes = 1500
        limits.grace = 0
        let refused = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: .caller("z"), limits: limits) }
        #expect(refused?.message.contains("disk") == true)
        let copies = { ["one", "two", "three"].flatMap { app in
            ((try? FileManager.default.contentsOfDirectory(atPath: inbox.directory(for: DesktopID(app)))) ?? []).map { app + "/" + $0 } } }
        #expect(copies().sorted() == ["one/a.bin", "two/a.bin"])
        limits.minimumFreeBytes = nil
        _ = try inbox.place(fd, name: "a.bin", desktopID: "three.desktop", caller: .caller("z"), limits: limits)
        #expect(copies().count == 2 && copies().contains("three/a.bin"), "\(copies())")
    }

    /// Unidentified callers share one charge (``InboxSender/unidentified``), and no caller joins
    /// it by its name: one that calls itself `(unidentified)` is charged on its own.
    @Test func theUnidentifiedShareOneChargeThatNoNameJoins() throws {
        let tree = XDGTree()
        let inbox = Inbox(root: tree.root + "/inbox")
        let limits = InboxLimits(inboxBytes: 1000, retention: 60)
        let fd = source(tree, "a.bin", bytes: 600)
        defer { close(fd) }
        _ = try inbox.place(fd, name: "a.bin", desktopID: "one.desktop", caller: .unidentified, limits: limits)
        let shared = failure { () throws(OpenFailure) in try inbox.place(fd, name: "a.bin", desktopID: "two.desktop", caller: InboxSender(nil), limits: limits) }
        #expect(shared?.kind == .quotaExceeded && shared?.message.contains("your documents") == true, "\(String(describing: shared))")
        let named = try CallerID(checking: "(unidentified)")  // a name a caller may claim
        _ = try inbox.place(fd, name: "a.bin", desktopID: "two.desktop", caller: .caller(named), limits: limits)
    }

    /// A name that is not UTF-8 (`photo-\xE9t\xE9.png`, Latin-1): the copy keeps its bytes, and
    /// is charged, counted against the caps and swept like any other.
    @Test func aCopyKeepsANameThatIsNotUTF8AndIsChargedAndSwept() throws {
        let tree = XDGTree()
        let inbox = Inbox(root: tree.root + "/inbox")
        var limits = InboxLimits(inboxBytes: 1000, retention: 60)
        limits.grace = 3600
        let fd = source(tree, "a.bin", bytes: 600)
        defer { close(fd) }
        let name: [UInt8] = Array("photo-".utf8) + [0xE9] + Array("t".utf8) + [0xE9] + Array(".png".utf8)
        let path = try inbox.place(fd, nameBytes: name, desktopID: "one.desktop", caller: .caller("x"), limits: limits)
        #expect(path == Array((inbox.directory(for: "one.desktop") + "/").utf8) + name)
        var st = stat()
        #expect((path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &st) } } == 0 && st.st_size == 600)
        // A second: numbered, the name's bytes kept; a third does not fit the Inbox the first two fill.
        let second = try inbox.place(fd, nameBytes: name, desktopID: "one.desktop", caller: .caller("y"), limits: InboxLimits(inboxBytes: 1200, retention: 60))
        #expect(second == Array((inbox.directory(for: "one.desktop") + "/photo-").utf8) + [0xE9, 0x74, 0xE9] + Array(" (2).png".utf8))
        let full = failure { () throws(OpenFailure) in String(decoding: try inbox.place(fd, nameBytes: name, desktopID: "one.desktop", caller: .caller("z"), limits: limits), as: UTF8.self) }
        #expect(full?.kind == .quotaExceeded, "the copies whose names are not UTF-8 count: \(String(describing: full))")
        // Swept once past the retention.
        #expect(inbox.sweep(retention: 60, now: Int64(time(nil)) + 120) == 2)
        #expect(!FileManager.default.fileExists(atPath: inbox.directory(for: "one.desktop")))
    }

    /// A long name whose extension alone is over 200 bytes (`a.xxx…`, 255 bytes, the most a
    /// name may have) gets a safe name of at most 200 bytes (it once looped for ever).
    @Test func aNameWithAnExtensionOver200BytesIsCut() {
        let long = "a." + String(repeating: "x", count: 253)
        #expect(Inbox.safeName(long).utf8.count <= 200 && Inbox.safeName(long).hasPrefix("a.x"))
        let bytes = Array(long.utf8) + [0xE9]
        #expect(Inbox.safeName(bytes).count <= 200)
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
        #expect(FileDescriptor.lending(fd) { source in FileDescriptor.lending(out) { Inbox.copy(source, to: $0, length: 100) } } == 0)
        var st = stat()
        #expect(fstat(out, &st) == 0 && st.st_size == 100)
    }
}
