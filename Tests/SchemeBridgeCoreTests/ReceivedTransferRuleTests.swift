import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// Issues 37 (item 4) and 38 (item 3): what a paired device sends is grouped into transfers
/// (one notification each, never one per file), a device can have only so much waiting, a device
/// the user said "Not from this device" to is never offered again, and the notification names
/// the device and the files safely.
@Suite struct ReceivedTransferRuleTests {
    static func file(_ n: Int) -> ReceivedShare { .file("/home/u/Downloads/photo-\(n).jpg") }

    /// A burst of 300 files, each a few ms after the last, is one transfer: 20 offered, 280 kept.
    @Test func aBurstFromOneDeviceIsOneTransferWithTheRestKept() {
        var rule = ReceivedTransfers()
        var arrivals: [ReceivedTransfers.Arrival] = []
        for n in 0..<300 { arrivals.append(rule.receive(Self.file(n), from: "phone", at: Int64(n) * 5, blocked: false)) }
        #expect(arrivals.first == .started(1))
        #expect(arrivals.dropFirst().allSatisfy { if case .joined(1, _) = $0 { true } else { false } })
        #expect(rule.close(at: 299 * 5 + 1_999).isEmpty)  // still within the quiet window after the last
        let closed = rule.close(at: 299 * 5 + 2_000)
        #expect(closed.count == 1)
        #expect(closed.first?.offered == (0..<20).map(Self.file))
        #expect(closed.first?.kept == 280)
        #expect(rule.waiting("phone") == 1)
    }

    /// A pause longer than the quiet window ends a transfer; a device that never pauses still
    /// gets its transfer closed at the longest length.
    @Test func aPauseOrTheLongestLengthEndsATransfer() {
        var rule = ReceivedTransfers()
        _ = rule.receive(Self.file(1), from: "phone", at: 0, blocked: false)
        #expect(rule.nextDeadline == 2_000)
        #expect(rule.close(at: 2_500).count == 1)
        #expect(rule.receive(Self.file(2), from: "phone", at: 2_600, blocked: false) == .started(2))

        var busy = ReceivedTransfers()
        var t: Int64 = 0
        while t < 70_000 {
            _ = busy.receive(Self.file(Int(t)), from: "phone", at: t, blocked: false)
            t += 1_000
            #expect(busy.close(at: t).count == (t == 60_000 ? 1 : 0), "closed at the longest length, 60 s after its first item, only then: \(t)")
        }
        #expect(busy.waiting("phone") == 1)
    }

    /// Two devices' shares never mix.
    @Test func devicesHaveTransfersOfTheirOwn() {
        var rule = ReceivedTransfers()
        #expect(rule.receive(Self.file(1), from: "a", at: 0, blocked: false) == .started(1))
        #expect(rule.receive(Self.file(2), from: "b", at: 1, blocked: false) == .started(2))
        #expect(rule.receive(Self.file(3), from: "a", at: 2, blocked: false) == .joined(1, offered: true))
        let closed = rule.close(at: 5_000)
        #expect(closed.map(\.deviceID) == ["a", "b"])
        #expect(closed.map(\.offered.count) == [2, 1])
    }

    /// A device with three transfers waiting for an answer gets no fourth: its shares are kept;
    /// an answer frees a place.
    @Test func aDeviceCanHaveOnlySoManyTransfersWaiting() {
        var rule = ReceivedTransfers()
        var t: Int64 = 0
        for _ in 0..<3 {
            if case .started = rule.receive(Self.file(Int(t)), from: "phone", at: t, blocked: false) {} else { Issue.record("not started at \(t)") }
            t += 10_000
            #expect(rule.close(at: t).count == 1)
        }
        #expect(rule.waiting("phone") == 3)
        #expect(rule.receive(Self.file(99), from: "phone", at: t, blocked: false) == .overflow)
        #expect(rule.receive(Self.file(100), from: "tablet", at: t, blocked: false) == .started(4), "another device is not held up")
        rule.settle(2)
        #expect(rule.waiting("phone") == 2)
        #expect(rule.receive(Self.file(101), from: "phone", at: t + 1, blocked: false) == .started(5))
    }

    /// "Not from this device": blocked shares are never grouped or offered; dropping a device
    /// hands back its open transfer.
    @Test func aBlockedDevicesSharesAreNeverOffered() {
        var rule = ReceivedTransfers()
        #expect(rule.receive(Self.file(1), from: "phone", at: 0, blocked: true) == .blocked)
        #expect(rule.nextDeadline == nil)
        _ = rule.receive(Self.file(2), from: "phone", at: 1, blocked: false)
        #expect(rule.drop("phone")?.offered == [Self.file(2)])
        #expect(rule.close(at: 100_000).isEmpty)
    }

    /// The list is the user's file: ids only as KDE Connect makes them, names sanitised, a
    /// round trip through the file, the oldest dropped past the maximum.
    @Test func theNotFromThisDeviceListRoundTripsThroughItsFile() throws {
        var list = BlockedDevices()
        let added = list.add("1a2b_3c", name: "Pixel\u{202E} 7\n"), again = list.add("1a2b_3c", name: "again"), bad = list.add("../etc", name: "bad id")
        #expect(added && !again && !bad)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blocked-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("schemebridge/blocked-devices").path
        try list.save(path)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let loaded = BlockedDevices.load(path)
        #expect(loaded == list)
        #expect(loaded.contains("1a2b_3c") && loaded.entries.first?.name == "Pixel 7")
        #expect(BlockedDevices(text: "# comment\nnot an entry\n../x=y\nabc=Phone = 2\n").entries.map(\.id) == ["abc"])
        #expect(BlockedDevices.load(folder.appendingPathComponent("missing").path).entries.isEmpty)
        list.remove("1a2b_3c")
        #expect(!list.contains("1a2b_3c"))
        var many = BlockedDevices()
        for n in 0...BlockedDevices.maximumCount { many.add("d\(n)", name: "D") }
        #expect(many.entries.count == BlockedDevices.maximumCount && !many.contains("d0"))
    }

    /// The notification names the device and the files, says what was kept, escapes markup and
    /// drops what could disguise a name; "Open" is not offered for what was opened already.
    @Test func theNoticeNamesTheDeviceAndTheFiles() {
        let one = ReceivedNotice(deviceName: "Pixel 7", items: [.file("beach.png")], kept: 0, opened: false, markup: true)
        #expect(one.summary == "Pixel 7 sent a file")
        #expect(one.body == "beach.png")
        #expect(one.actionList == ["open", "Open", "show-in-folder", "Show in folder", "not-from-this-device", "Not from this device", "dismiss", "Dismiss"])

        let many = ReceivedNotice(deviceName: "Pixel 7", items: (1...20).map { .file("photo-\($0).jpg") }, kept: 280, opened: false, markup: false)
        #expect(many.summary == "Pixel 7 sent 20 files")
        #expect(many.body == "photo-1.jpg, photo-2.jpg, photo-3.jpg, photo-4.jpg, photo-5.jpg, and 15 more\n280 more kept in the download folder, not opened")

        let hostile = ReceivedNotice(deviceName: "<b>Bank</b>", items: [.file("a<img src=x>\u{202E}gpj.exe"), .link("https://e.example/?a=1&b=2")],
                                     kept: 0, opened: true, markup: true)
        #expect(hostile.summary == "<b>Bank</b> sent 2 items (opened)", "the summary is never markup")
        #expect(hostile.body == "a&lt;img src=x&gt;gpj.exe, https://e.example/?a=1&amp;b=2")
        #expect(hostile.actions == [.showInFolder, .notFromThisDevice, .dismiss])
        #expect(ReceivedNotice(deviceName: "", items: [.text], kept: 0, opened: false, markup: false).summary == "Unnamed device sent text")
        #expect(ReceivedNotice(deviceName: "T", items: [.link("todo://x")], kept: 0, opened: false, markup: false).summary == "T sent a link")
        let long = ReceivedNotice(deviceName: "T", items: [.file(String(repeating: "x", count: 500))], kept: 0, opened: false, markup: false)
        #expect(long.body.count == ReceivedNotice.maximumNameCharacters)
    }
}
