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

    /// One dialog for every question: `schemebridge-dialog` in libexec/schemebridge beside the
    /// service's bin (an installed tree), else beside the service, else on PATH; none without a display.
    @Test func theShippedDialogIsFoundInLibexecBesideTheServiceThenOnPath() throws {
        let tree = XDGTree(dataDirCount: 1)
        let own = tree.root + "/prefix/bin"
        let libexec = tree.root + "/prefix/libexec/schemebridge/schemebridge-dialog"
        for program in [tree.bin + "/schemebridge-dialog", own + "/schemebridge-dialog", libexec] {
            tree.write(program, "#!/bin/sh\n")
            chmod(program, 0o755)
        }
        var env = ["PATH": tree.bin, "DISPLAY": ":0"]
        let find = { (env: [String: String]) throws(ServiceFailure) in
            try ShippedChooser.find(environment: env, ownDirectory: own, busName: "io.example.Chooser1")
        }
        #expect(try find(env).path == own + "/../libexec/schemebridge/schemebridge-dialog", "libexec first")
        unlink(libexec)
        #expect(try find(env).path == own + "/schemebridge-dialog", "then beside the service")
        unlink(own + "/schemebridge-dialog")
        #expect(try find(env).path == tree.bin + "/schemebridge-dialog", "then on PATH")
        env["DISPLAY"] = nil
        do throws(ServiceFailure) {
            _ = try find(env)
            Issue.record("a dialog without a display")
        } catch {
            #expect(error.kind == .noChooser && error.message.contains("no display") && error.message.contains("io.example.Chooser1"))
        }
        env["WAYLAND_DISPLAY"] = "wayland-0"
        unlink(tree.bin + "/schemebridge-dialog")
        do throws(ServiceFailure) {
            _ = try find(env)
            Issue.record("a dialog that is not installed")
        } catch {
            #expect(error.kind == .noChooser && error.message.contains("schemebridge-dialog is not installed"))
        }
    }
}
