import Testing
@testable import SchemeBridgeCore

/// Issue 38, "say what happened": what a device share's answer says from the engine's job
/// reports (``DeviceDeliveryRule``), and `[Devices] Timeout`.
@Suite struct DeviceDeliveryTests {
    func job(_ strings: [String: String] = [:], _ numbers: [String: UInt64] = [:]) -> EngineJob {
        var j = EngineJob()
        j.apply(strings: strings, numbers: numbers)
        return j
    }

    @Test func theOutcomeIsWhatTheEngineReportedNeverSuccessWithoutAnEnd() {
        let running = job(["title": "Sending to Phone", "descriptionValue1": "a.bin"], ["processedBytes": 25, "totalBytes": 100])
        #expect(running.progress == 25 && running.files == ["a.bin"])
        var done = running
        done.end(code: 0, message: "")
        #expect(DeviceDeliveryRule.outcome(job: done, engineLeft: false, timedOut: false, device: "Phone", engine: "KDE Connect").0 == .delivered)
        var broken = running
        broken.end(code: 100, message: "Remote host closed")
        #expect(DeviceDeliveryRule.outcome(job: broken, engineLeft: false, timedOut: false, device: "Phone", engine: "KDE Connect")
            == (.failed, "KDE Connect reported the transfer to Phone failed: Remote host closed"))
        var killed = running
        killed.end(code: 1, message: "")
        #expect(DeviceDeliveryRule.outcome(job: killed, engineLeft: false, timedOut: false, device: "Phone", engine: "KDE Connect")
            == (.failed, "the transfer to Phone was cancelled"))
        let late = DeviceDeliveryRule.outcome(job: running, engineLeft: false, timedOut: true, device: "Phone", engine: "KDE Connect")
        #expect(late.0 == .unknown && late.1?.contains("25% sent") == true)
        #expect(DeviceDeliveryRule.outcome(job: running, engineLeft: true, timedOut: false, device: "Phone", engine: "KDE Connect")
            == (.failed, "KDE Connect stopped before the transfer to Phone ended"))
        // An end reported before the engine left counts as reported.
        #expect(DeviceDeliveryRule.outcome(job: done, engineLeft: true, timedOut: true, device: "Phone", engine: "KDE Connect").0 == .delivered)
        #expect(DeviceDeliveryRule.outcome(job: nil, engineLeft: false, timedOut: false, device: "Phone", engine: "KDE Connect").0 == .handedToEngine)
        // `terminated` in an update (a job that ended before its view came) ends it too.
        let ended = job(["errorMessage": "gone"], ["terminated": 1, "errorCode": 7])
        #expect(ended.endCode == 7 && ended.endMessage == "gone")
        #expect(job([:], ["percent": 250]).progress == 100)
    }

    @Test func aJobViewIsTheSharesWhenItNamesOneOfItsFiles() {
        #expect(DeviceDeliveryRule.matches(job(), names: ["a.bin"]))
        #expect(DeviceDeliveryRule.matches(job(["descriptionValue1": "a.bin"]), names: ["a.bin", "b.bin"]))
        #expect(!DeviceDeliveryRule.matches(job(["descriptionValue1": "other.bin"]), names: ["a.bin"]))
    }

    @Test func devicesTimeoutIsReadInRange() throws {
        var warnings: [String] = []
        #expect(try PolicyConfig.parse("[Devices]\nTimeout=45\nOpenReceived=never\n", path: "c", warnings: &warnings).deviceTimeout == 45)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(try PolicyConfig.parse("", path: "c", warnings: &warnings).deviceTimeout == 300)
        let bad = try PolicyConfig.parse("[Devices]\nTimeout=0\n", path: "c", warnings: &warnings)
        #expect(bad.deviceTimeout == 300 && warnings == ["c: Timeout=0 is not a whole number from 1 to 86400; ignored"])
    }
}
