import Foundation
import Testing
@testable import SchemeBridgeCore

/// The portal's `AppChooser` backend's rules (issue 40), without a bus: what the frontend's
/// `ChooseApplication` is decoded to, the one decision for the app it names, and who may call.
@Suite struct PortalAppChooserRuleTests {
    typealias FakeChooser = OnePathTests.FakeChooser
    static let url = ["content_type": "x-scheme-handler/todo", "uri": "todo://x?y=1"]

    @Test func theFrontendsOptionsAreAURLOrADocument() throws {
        let r = try AppChooserRequest(appID: "org.test.App", choices: ["a", "b", "bad/id"], options: Self.url)
        #expect(r.subject == .url(try SchemeURL("todo://x?y=1")) && r.appID == "org.test.App" && r.choices == ["a", "b"])
        #expect(r.activationToken == nil)
        // A file: the frontend passes its type, base name and host file:// URI.
        let doc = try AppChooserRequest(appID: "", choices: [], options: ["content_type": "Text/Markdown", "filename": "n.md", "uri": "file:///h/n.md"])
        #expect(doc.subject == .document(try ContentType("text/markdown")) && doc.appID == nil)
        // 1.16 passes the URI as the activation token: a value that is no token is dropped.
        #expect(try AppChooserRequest(appID: "a.b", choices: [], options: Self.url.merging(["activation_token": "todo://x"]) { $1 }).activationToken == nil)
        #expect(try AppChooserRequest(appID: "a.b", choices: [], options: Self.url.merging(["activation_token": "tok_1"]) { $1 }).activationToken == "tok_1")
        // Refused: a scheme type with another scheme's URI, no URI, nothing at all, a bad app id.
        #expect(throws: OpenFailure.self) { try AppChooserRequest(appID: "a.b", choices: [], options: ["content_type": "x-scheme-handler/todo", "uri": "mail:x"]) }
        #expect(throws: OpenFailure.self) { try AppChooserRequest(appID: "a.b", choices: [], options: ["content_type": "x-scheme-handler/todo"]) }
        #expect(throws: OpenFailure.self) { try AppChooserRequest(appID: "a.b", choices: [], options: [:]) }
        #expect(throws: OpenFailure.self) { try AppChooserRequest(appID: "a/b;c", choices: [], options: Self.url) }
    }

    @Test func theNamedAppIsTheCallerAHostAppHasNoIdentity() throws {
        let app = try AppChooserRequest(appID: "org.test.App", choices: [], options: Self.url).caller(frontend: ":1.5", pid: 42)
        #expect(app.appID == "org.test.App" && app.rememberingID == "org.test.App" && app.sandboxed && app.busName == ":1.5")
        let host = try AppChooserRequest(appID: "", choices: [], options: Self.url).caller(frontend: ":1.5", pid: 42)
        #expect(host.appID == nil && host.rememberingID == nil)
        // The app is a caller identity: named with its desktop file's suffix, it is the same app.
        #expect(try AppChooserRequest(appID: "org.test.App.desktop", choices: [], options: Self.url).appID == "org.test.App")
    }

    @Test func theAnswerComesFromTheOneDecision() async throws {
        let s = DecidingTests.Setup()
        for id in ["a", "b", "c"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        let broker = s.broker(config: "[Routes]\ntodo from org.test.Routed=c.desktop\n")
        let request = { (app: String) in try AppChooserRequest(appID: PortalAppName(app), choices: ["a", "b", "c"], options: Self.url) }
        // A route for the app's id: no chooser.
        let never = FakeChooser(.cancelled(reason: "no"))
        let routed = try request("org.test.Routed")
        var answer = await broker.answer(routed, caller: routed.caller(frontend: ":1.5", pid: nil), chooser: never, warn: { _ in })
        #expect(answer.response == .success && answer.choice == "c" && never.count == 0, "\(answer)")
        // Nothing decides: the chooser; "always" is remembered for the app, which is not asked again.
        let other = try request("org.test.Other")
        let picks = FakeChooser(.picked("b.desktop", always: true))
        answer = await broker.answer(other, caller: other.caller(frontend: ":1.5", pid: nil), chooser: picks, warn: { _ in })
        #expect(answer.response == .success && answer.choice == "b" && picks.count == 1)
        #expect(picks.asked.withLock { $0.first?.1.appID } == "org.test.Other")
        answer = await broker.answer(other, caller: other.caller(frontend: ":1.5", pid: nil), chooser: picks, warn: { _ in })
        #expect(answer.choice == "b" && picks.count == 1 && answer.reason.contains("remembered"))
        // A cancel is a cancel (1); a chooser that cannot be shown is "other" (2).
        let third = try request("org.test.Third")
        answer = await broker.answer(third, caller: third.caller(frontend: ":1.5", pid: nil), chooser: FakeChooser(.cancelled(reason: "closed")), warn: { _ in })
        #expect(answer.response == .cancelled && answer.choice == nil)
        answer = await broker.answer(third, caller: third.caller(frontend: ":1.5", pid: nil), chooser: FakeChooser(.failed(reason: "no display")), warn: { _ in })
        #expect(answer.response == .other && answer.choice == nil)
        // A scheme nobody handles: other.
        let none = try AppChooserRequest(appID: "org.test.Other", choices: [], options: ["content_type": "x-scheme-handler/nope", "uri": "nope:x"])
        answer = await broker.answer(none, caller: none.caller(frontend: ":1.5", pid: nil), chooser: never, warn: { _ in })
        #expect(answer.response == .other && never.count == 0)
    }

    /// The frontend's `parent_window` reaches the chooser normalised; one of neither form is
    /// dropped (with a warning), never a refusal of the app's open.
    @Test func theParentWindowReachesTheChooserNormalised() async throws {
        let s = DecidingTests.Setup()
        for id in ["a", "b"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        let broker = s.broker(config: "")
        for (given, expected) in [("x11:0x1A00003", "x11:1a00003"), ("wayland:Abc-1", "wayland:Abc-1"), ("", nil), ("mir:7", nil), ("x11:0", nil)] {
            let r = try AppChooserRequest(appID: "org.test.App", choices: [], options: Self.url, parentWindow: given)
            #expect(r.parentWindow == expected, "\(given)")
            #expect((r.parentWindowWarning != nil) == (given.hasPrefix("mir") || given == "x11:0"), "\(given)")
            let chooser = FakeChooser(.picked("a.desktop", always: false))
            let answer = await broker.answer(r, caller: r.caller(frontend: ":1.5", pid: nil), chooser: chooser, warn: { _ in })
            #expect(answer.choice == "a" && chooser.asked.withLock { $0.first?.2.parentWindow } == expected, "\(given)")
        }
    }

    @Test func onlyTheRealFrontendMaySpeakForAnApp() {
        #expect(PortalFrontendRule.refusal(of: EngineProcess(executable: "/usr/libexec/xdg-desktop-portal", executableProtected: true)) == nil)
        #expect(PortalFrontendRule.refusal(of: EngineProcess(executable: "/home/u/bin/xdg-desktop-portal", executableProtected: false)) != nil)
        #expect(PortalFrontendRule.refusal(of: EngineProcess(executable: "/usr/bin/python3.11", executableProtected: true)) != nil)
        #expect(PortalFrontendRule.refusal(of: EngineProcess(executable: "/usr/libexec/xdg-desktop-portal", executableProtected: true, sandboxed: true)) != nil)
    }
}
