import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Which chooser asks: the configured program, a bus client only when configured, else the shipped one.
@Suite struct ChooserKindTests {
    /// A bus lookup that answers `available` and counts how often it was asked.
    final class BusLookup: Sendable {
        let available: Bool
        let asked = Mutex(0)
        init(_ available: Bool) { self.available = available }
        func callback() async -> Bool { asked.withLock { $0 += 1 }; return available }
    }

    @Test func aConfiguredCommandWinsWithoutAskingTheBus() async {
        let bus = BusLookup(true)
        #expect(await ChooserSettings(command: ["my-chooser", "--flag"], bus: true).chooser(busChooserAvailable: bus.callback)
            == .configured(["my-chooser", "--flag"]))
        #expect(bus.asked.withLock { $0 } == 0)
    }

    @Test func theBusOnlyWhenConfiguredAndAvailable() async {
        let bus = BusLookup(true)
        #expect(await ChooserSettings().chooser(busChooserAvailable: bus.callback) == .shipped, "Bus= is off by default")
        #expect(bus.asked.withLock { $0 } == 0, "an unconfigured bus chooser is not even looked for")
        #expect(await ChooserSettings(bus: true).chooser(busChooserAvailable: bus.callback) == .bus)
        #expect(await ChooserSettings(bus: true).chooser(busChooserAvailable: BusLookup(false).callback) == .shipped)
    }
}

/// What a chooser is told, and which shipped program shows a question.
@Suite struct ChooserPromptTests {
    @Test func theKindFollowsTheSubject() {
        #expect(ChooserPrompt(subject: "mailto").kind == "scheme")
        #expect(ChooserPrompt(subject: "image/png").kind == "type")
        #expect(ChooserPrompt(subject: "pick:image/png").kind == "pick")
        let share = ShareQuestion(types: ["image/png"], count: 2, activationToken: "share-token")
        let prompt = ChooserPrompt(subject: "share:image/png", share: share)
        #expect(prompt.kind == "share")
        #expect(prompt.activationToken(caller: "other") == "share-token", "the sharing app's token")
        #expect(ChooserPrompt(subject: "mailto").activationToken(caller: "caller-token") == "caller-token")
    }

    @Test func aShareTargetsKindColumn() {
        #expect(ShareQuestion.kind("org.example.Mail.desktop:compose") == "app")
        #expect(ShareQuestion.kind(ShareTargetID.device("abc").text) == "device")
        #expect(ShareQuestion.kind(ShareTargetID.copy.text) == "builtin")
    }

    @Test func theSheetShowsASharesQuestionWhenInstalledElseTheChooser() throws {
        let tree = XDGTree(dataDirCount: 1)
        let own = tree.root + "/libexec"
        for program in [tree.bin + "/zenity", own + "/schemebridge-chooser", tree.bin + "/schemebridge-sheet"] {
            tree.write(program, "#!/bin/sh\n")
            chmod(program, 0o755)
        }
        var env = ["PATH": tree.bin, "DISPLAY": ":0"]
        let find = { (share: Bool, env: [String: String]) throws(ServiceFailure) in
            try ShippedChooser.find(forShare: share, environment: env, ownDirectory: own, busName: "io.example.Chooser1")
        }
        #expect(try find(true, env) == ShippedChooser(path: tree.bin + "/schemebridge-sheet", name: "schemebridge-sheet", readsKinds: true))
        #expect(try find(false, env) == ShippedChooser(path: own + "/schemebridge-chooser", name: "schemebridge-chooser", readsKinds: false),
                "beside the service first")
        unlink(tree.bin + "/schemebridge-sheet")
        #expect(try find(true, env).name == "schemebridge-chooser", "the chooser stands in for the sheet")
        env["DISPLAY"] = nil
        do throws(ServiceFailure) {
            _ = try find(false, env)
            Issue.record("a chooser without a display")
        } catch {
            #expect(error.kind == .noChooser && error.message.contains("give the session a display") && error.message.contains("io.example.Chooser1"))
        }
        env["WAYLAND_DISPLAY"] = "wayland-0"
        unlink(tree.bin + "/zenity")
        #expect(throws: ServiceFailure.self) { try find(false, env) }
    }
}
