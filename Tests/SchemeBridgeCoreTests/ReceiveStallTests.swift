import Testing
@testable import SchemeBridgeCore

/// Issue 38: a transfer from a device that stopped moving is told once per stop and withdrawn
/// when it moves or ends (``ReceiveStallRule``); `[Devices] ReceiveStall`.
@Suite struct ReceiveStallTests {
    /// A receiving job as KDE Connect 22.12 reports it (requestView's hints, then the first update).
    func receiving(_ processed: UInt64 = 0) -> EngineJob {
        var j = EngineJob()
        j.apply(strings: ["destUrl": "file:///home/u/Downloads"], numbers: [:])
        j.apply(strings: ["title": "Receiving file", "descriptionLabel1": "Source", "descriptionValue1": "Pixel 7",
                          "descriptionLabel2": "Destination", "descriptionValue2": "/home/u/Downloads/beach.png"],
                numbers: ["totalBytes": 1000, "processedBytes": processed])
        return j
    }

    @Test func aReceivingJobNamesItsDeviceAndFileAndNeverMatchesAShare() {
        let j = receiving(250)
        #expect(j.receiving && j.source == "Pixel 7" && j.currentFile == "/home/u/Downloads/beach.png" && j.progress == 25)
        // A share of a file named like the device, or like the file, is not followed through it.
        #expect(!DeviceDeliveryRule.matches(j, names: ["Pixel 7"]) && !DeviceDeliveryRule.matches(j, names: ["beach.png"]))
        var fresh = EngineJob()
        fresh.apply(strings: ["destUrl": "file:///d"], numbers: [:])
        #expect(!DeviceDeliveryRule.matches(fresh, names: ["a.bin"]))
        // A send as KDE Connect 22.12 reports it: `destUrl` is there, empty.
        var sending = EngineJob()
        sending.apply(strings: ["title": "Sending to Pixel 7", "descriptionLabel1": "File", "descriptionValue1": "a.bin", "destUrl": ""], numbers: [:])
        #expect(!sending.receiving && sending.source.isEmpty && DeviceDeliveryRule.matches(sending, names: ["a.bin"]))
    }

    @Test func aStillTransferIsToldOnceAndWithdrawnWhenItMovesOrEnds() {
        let t0 = ContinuousClock.now, quiet = Duration.seconds(60)
        var views = [UInt64(1): ReceiveStallRule.Seen(job: receiving(), changed: t0)]
        var sending = EngineJob()
        sending.apply(strings: ["title": "Sending to Pixel 7"], numbers: [:])
        views[2] = .init(job: sending, changed: t0 - .seconds(600))  // a send standing still is no concern here
        var due = ReceiveStallRule.due(views: views, told: [:], quiet: quiet, now: t0 + .seconds(59))
        #expect(due.tell.isEmpty && due.withdraw.isEmpty && due.next == t0 + quiet)
        due = ReceiveStallRule.due(views: views, told: [:], quiet: quiet, now: t0 + quiet)
        #expect(due.tell == [1] && due.next == nil)
        // Told at this change: not again.
        due = ReceiveStallRule.due(views: views, told: [1: t0], quiet: quiet, now: t0 + .seconds(3600))
        #expect(due.tell.isEmpty && due.withdraw.isEmpty)
        // It moved: withdrawn, and watched again from the move.
        views[1]?.changed = t0 + .seconds(70)
        due = ReceiveStallRule.due(views: views, told: [1: t0], quiet: quiet, now: t0 + .seconds(71))
        #expect(due.withdraw == [1] && due.tell.isEmpty && due.next == t0 + .seconds(130))
        // It ended (or its view is gone): withdrawn, never told again.
        views[1]?.job.end(code: 0, message: "")
        due = ReceiveStallRule.due(views: views, told: [1: t0 + .seconds(70)], quiet: quiet, now: t0 + .seconds(999))
        #expect(due.withdraw == [1] && due.tell.isEmpty && due.next == nil)
        #expect(ReceiveStallRule.due(views: [:], told: [7: t0], quiet: quiet, now: t0).withdraw == [7])
    }

    @Test func theNoticeNamesTheDeviceTheFileAndWhatArrived() {
        let n = ReceiveStallRule.notice(receiving(400), quiet: .seconds(60), markup: false)
        #expect(n.summary == "Nothing is arriving from Pixel 7")
        #expect(n.body == "beach.png has not moved for 60 s, 40% received. KDE Connect may take nothing more from Pixel 7 until it is restarted.")
        var bare = EngineJob()
        bare.apply(strings: ["destUrl": "file:///d"], numbers: [:])
        #expect(ReceiveStallRule.notice(bare, quiet: .seconds(5), markup: false) == ("Nothing is arriving from a device",
                "The transfer has not moved for 5 s. KDE Connect may take nothing more from a device until it is restarted."))
    }

    /// The device's and the file's names come from the network: sanitised like a device name and,
    /// for a server that reads markup, escaped — a name cannot bold, link or reorder the notice.
    @Test func namesFromTheNetworkAreSanitisedAndEscaped() {
        var j = EngineJob()
        j.apply(strings: ["destUrl": "file:///d", "descriptionValue1": "Evil\u{202E}<b>Phone</b>\u{7}",
                          "descriptionValue2": "/d/<a href=\"x\">pic</a>\u{0}.png"], numbers: [:])
        let plain = ReceiveStallRule.notice(j, quiet: .seconds(60), markup: false)
        #expect(!plain.summary.contains("\u{202E}") && !plain.summary.contains("\u{7}"), "\(plain.summary)")
        #expect(plain.summary == "Nothing is arriving from \(DeviceName.sanitized("Evil\u{202E}<b>Phone</b>\u{7}"))")
        let marked = ReceiveStallRule.notice(j, quiet: .seconds(60), markup: true)
        #expect(!marked.body.contains("<") && !marked.body.contains(">") && marked.body.contains("&lt;b&gt;Phone&lt;/b&gt;"), "\(marked.body)")
        let long = String(repeating: "x", count: 10_000)
        j.apply(strings: ["descriptionValue1": long, "descriptionValue2": "/d/" + long], numbers: [:])
        #expect(ReceiveStallRule.notice(j, quiet: .seconds(60), markup: false).body.count < 400)
    }

    @Test func receiveStallIsReadFromTheDevicesGroup() throws {
        var warnings: [String] = []
        #expect(try PolicyConfig.parse("[Devices]\nReceiveStall=20\nTimeout=45\n", path: "c", warnings: &warnings).receiveStall == 20)
        #expect(warnings.isEmpty)
        #expect(try PolicyConfig.parse("", path: "c", warnings: &warnings).receiveStall == 60)
        let bad = try PolicyConfig.parse("[Devices]\nReceiveStall=-3\n", path: "c", warnings: &warnings)
        #expect(bad.receiveStall == 60 && warnings == ["c: ReceiveStall=-3 is not a whole number from 1 to 86400; ignored"])
    }
}
