import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// The rules for nearby devices: names from the network are shown safely, ids never become
/// arbitrary object paths, the outbox is private and expires, received shares are classified,
/// `[Devices] OpenReceived` is read.
@Suite struct DeviceRulesTests {
    /// Issue 38: a device shows as what the engine says it is, not always as a phone.
    @Test func aDevicesKindIsTheEnginesTypeWithItsIcon() {
        let cases: [(String, DeviceKind, String)] = [("smartphone", .phone, "phone"), ("phone", .phone, "phone"), ("tablet", .tablet, "tablet"),
                                                     ("laptop", .laptop, "computer-laptop"), ("Desktop", .desktop, "computer"), ("tv", .tv, "tv"),
                                                     ("", .phone, "phone"), ("toaster", .phone, "phone"), (String(repeating: "tv", count: 40), .phone, "phone")]
        for (type, kind, icon) in cases {
            #expect(DeviceKind(engineType: type) == kind && kind.icon == icon, "\(type)")
        }
        #expect(NearbyDevice(id: "a", name: "A", reachable: true, paired: true, canReceive: true).kind == .phone)
    }

    @Test func hostileDeviceNamesAreCleanedAndBounded() {
        #expect(DeviceName.sanitized("Pixel 7") == "Pixel 7")
        #expect(DeviceName.sanitized("evil\u{202E}gpj.exe\n\t\u{0}name") == "evilgpj.exe name")
        #expect(DeviceName.sanitized("  \u{200B}\u{2066} ") == "Unnamed device")
        let huge = DeviceName.sanitized(String(repeating: "A", count: 5_000_000))
        #expect(huge.count == DeviceName.maximumCharacters && huge.hasSuffix("…"))
        let device = NearbyDevice(id: "abc_1", name: "Phone\u{1B}[31m", reachable: true, paired: true, canReceive: true)
        #expect(device.name == "Phone[31m" && device.sendTitle == "Send to Phone[31m" && device.isShareTarget)
        #expect(!NearbyDevice(id: "x", name: "x", reachable: true, paired: true, canReceive: false).isShareTarget)
        #expect(!NearbyDevice(id: "x", name: "x", reachable: false, paired: true, canReceive: true).isShareTarget)
    }

    @Test func deviceIDsAreOnlyPathSafeCharacters() {
        #expect(DeviceID.isValid("_f19559bd_35b8_45d6_a43d_784ac1f045f2_"))
        for bad in ["", "../share", "a/b", "a-b", "a b", String(repeating: "a", count: 129), "ä"] {
            #expect(!DeviceID.isValid(bad), "\(bad)")
        }
    }

    @Test func receivedSharesAreClassified() {
        #expect(ReceivedShare(engineArgument: "file:///home/u/Downloads/a%20b.png") == .file("/home/u/Downloads/a b.png"))
        #expect(ReceivedShare(engineArgument: "/work/kdeconnect-AbC.txt") == .text("/work/kdeconnect-AbC.txt"))
        #expect(ReceivedShare(engineArgument: "file://evil.example/x") == nil)
        #expect(ReceivedShare(engineArgument: "file:///a%00b") == nil)
        #expect(ReceivedShare(engineArgument: "https://example.org") == nil)
        #expect(ReceivedShare.url(inText: " https://example.org/x?y=1\n") == "https://example.org/x?y=1")
        #expect(ReceivedShare.url(inText: "hello world") == nil)
        #expect(ReceivedShare.url(inText: "file:///etc/passwd") == nil)
        #expect(PercentEncoding.fileURL(path: "/tmp/a b/ä#.txt") == "file:///tmp/a%20b/%C3%A4%23.txt")
    }

    @Test func openReceivedIsReadFromDevicesGroup() throws {
        var warnings: [String] = []
        #expect(try PolicyConfig.parse("[Devices]\nOpenReceived=default\n", path: "c", warnings: &warnings).openReceived == .default)
        #expect(warnings.isEmpty)
        #expect(try PolicyConfig.parse("[Devices]\nOpenReceived=sometimes\nColour=red\n", path: "c", warnings: &warnings).openReceived == .ask)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(PolicyConfig().openReceived == .ask)
    }

    @Test func outboxIsPrivateAndExpires() throws {
        let run = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: run) }
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let outbox = try #require(Outbox(environment: ["XDG_RUNTIME_DIR": run], lifetime: 60))
        #expect(Outbox(environment: [:]) == nil)
        let path = try outbox.place(Array("hello".utf8), name: "../../notes.txt", now: 1000)
        #expect(path.hasPrefix(outbox.directory + "/1060-") && path.hasSuffix("/notes.txt"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "hello")
        var st = stat()
        #expect(stat(outbox.directory, &st) == 0 && st.st_mode & 0o777 == 0o700)
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let later = try outbox.place([1, 2, 3], name: nil, now: 2000)
        #expect(later.hasSuffix("/shared"))
        // Not yet expired: kept; the next expiry is the first item's.
        #expect(outbox.sweep(now: 1059) == (0, 1060))
        #expect(outbox.sweep(now: 1060) == (1, 2060))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(outbox.sweep(now: Int64.max) == (1, nil))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.directory).isEmpty)
    }

    @Test func anOutboxThatIsASymlinkIsRefused() throws {
        let run = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: run) }
        try FileManager.default.createDirectory(atPath: run + "/schemebridge", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: run + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: run + "/schemebridge/outbox", withDestinationPath: run + "/elsewhere")
        let outbox = try #require(Outbox(environment: ["XDG_RUNTIME_DIR": run]))
        #expect(throws: FileSystemError.self) { try outbox.place([1], name: "x", now: 1) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: run + "/elsewhere").isEmpty)
    }
}
