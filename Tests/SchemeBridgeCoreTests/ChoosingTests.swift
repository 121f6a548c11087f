import Foundation
import Testing
@testable import SchemeBridgeCore

/// Choosing without a bus: the config's `[Chooser]` and `[Routes]`, the precedence of remembered
/// choices and routes over the defaults (per caller), the chooser line protocol, the choices file.
@Suite struct ChoosingTests {
    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        func broker(config: String = "", choices: ChoiceStore? = nil) -> Broker {
            if !config.isEmpty { tree.write(tree.configHome + "/schemebridge/config", config) }
            let registry = tree.registry()
            return Broker(registry: registry, policy: PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories)),
                          ownDesktopIDs: [], choices: choices ?? ChoiceStore(path: nil))
        }
        func admit(_ broker: Broker, _ url: String, app: String?, handler: DesktopID? = nil) throws(OpenFailure) -> String {
            try broker.admit(OpenRequest(url: url, handler: handler, caller: Caller(busName: ":1.9", id: app.flatMap(CallerID.init))),
                             searchPath: ["/usr/bin", "/bin"], sessionScale: 1, splashAvailable: false).plan.entry.id.fileName
        }
    }

    @Test func chooserAndRoutesAreRead() throws {
        var warnings: [String] = []
        let config = try PolicyConfig.parse("""
            [Chooser]
            Command=my-chooser --title "Pick one"
            Timeout=30

            [Routes]
            mailto from org.mozilla.firefox=org.example.Mail.desktop
            MAILTO from org.gnome.*=org.example.Mutt.desktop
            text/html from org.example.Editor=org.example.Browser.desktop
            mailto org.mozilla.firefox=x.desktop
            mailto from a=not-a-desktop-id
            """, path: "config", warnings: &warnings)
        #expect(config.chooser == ChooserSettings(command: ["my-chooser", "--title", "Pick one"], timeout: 30))
        #expect(config.routes == [Route(subject: "mailto", callerPattern: "org.mozilla.firefox", desktopID: "org.example.Mail.desktop"),
                                  Route(subject: "mailto", callerPattern: "org.gnome.*", desktopID: "org.example.Mutt.desktop"),
                                  Route(subject: "text/html", callerPattern: "org.example.Editor", desktopID: "org.example.Browser.desktop")])
        #expect(warnings.count == 2, "\(warnings)")
        #expect(config.routes.first(for: "mailto", caller: "org.gnome.Terminal")?.desktopID == "org.example.Mutt.desktop")
        #expect(config.routes.first(for: "mailto", caller: nil) == nil, "an unidentified caller matches no route")
        var more: [String] = []
        _ = try PolicyConfig.parse("[Chooser]\nTimeout=0\nColour=red\n", path: "c", warnings: &more)
        #expect(more.count == 2, "\(more)")
    }

    @Test func precedenceIsHandlerThenRememberedThenRouteThenDefault() async throws {
        let s = Setup()
        for id in ["a", "b", "c", "d"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        let broker = s.broker(config: "[Routes]\ntodo from org.example.*=c.desktop\n")
        #expect(try s.admit(broker, "todo:x", app: "org.other.App") == "a.desktop", "the default: the first in id order")
        #expect(try s.admit(broker, "todo:x", app: "org.example.Cal") == "c.desktop", "the route, for its callers only")
        try await broker.remember("b.desktop", for: "todo", caller: Caller(busName: ":1.9", id: "org.example.Cal"))
        #expect(try s.admit(broker, "todo:x", app: "org.example.Cal") == "b.desktop", "remembered wins over the route")
        #expect(try s.admit(broker, "todo:x", app: "org.example.Mail") == "c.desktop", "another caller still routed")
        #expect(try s.admit(broker, "todo:x", app: "org.example.Cal", handler: "d.desktop") == "d.desktop", "the handler option wins")
        #expect(broker.askPlan(forChecked: "todo:x", app: "org.example.Cal") == .decided("b.desktop"))
        // A remembered handler that is gone no longer counts: the route decides again.
        try FileManager.default.removeItem(atPath: s.tree.apps(1) + "/b.desktop")
        broker.registry.rescan()
        #expect(try s.admit(broker, "todo:x", app: "org.example.Cal") == "c.desktop")
        #expect(try await broker.forgetChoice(caller: "org.example.Cal", subject: "TODO"))
        #expect(try await !broker.forgetChoice(caller: "org.example.Cal", subject: "todo"))
    }

    @Test func askOffersTheHandlersThatAdmitTheCaller() throws {
        let s = Setup()
        s.tree.entry(1, "a.desktop", schemes: ["todo"], extra: "Name=Alpha\nIcon=alpha")
        s.tree.entry(1, "b.desktop", schemes: ["todo"], extra: "X-SchemeBridge-AllowedCallers=org.trusted.*")
        s.tree.list(s.tree.configHome + "/mimeapps.list", defaults: ["todo": "b.desktop"])
        let broker = s.broker()
        let plan = broker.askPlan(forChecked: "todo:x", app: "org.trusted.App")
        #expect(plan == .choose(subject: "todo", candidates: [ChooserCandidate(id: "b.desktop", name: "Test App", icon: ""),
                                                              ChooserCandidate(id: "a.desktop", name: "Alpha", icon: "alpha")]))
        #expect(broker.askPlan(forChecked: "todo:x", app: "org.other.App") == .choose(subject: "todo", candidates: [
            ChooserCandidate(id: "a.desktop", name: "Alpha", icon: "alpha")]))
        #expect(broker.askPlan(forChecked: "nothing:x", app: nil) == .nothingToChoose)
    }

    /// A candidate whose desktop id starts with `-` is never offered (a chooser that passes ids
    /// as arguments would take it for its own option).
    @Test func anIdThatLooksLikeAnOptionIsNotOffered() {
        #expect(ChooserCandidate.offerable([ChooserCandidate(id: "-a.desktop", name: "A", icon: ""),
                                            ChooserCandidate(id: "b.desktop", name: "--display=:9", icon: "")]).map(\.id) == ["b.desktop"])
    }

    @Test func choicesSurviveAReloadPrivately() async throws {
        let tree = XDGTree(dataDirCount: 1)
        let path = tree.configHome + "/schemebridge/choices"
        let store = ChoiceStore(path: path)
        try await store.remember(Choice(caller: "org.example.Cal", subject: "todo", desktopID: "a.desktop"))
        try await store.remember(Choice(caller: "/usr/bin/python3.11", subject: "text/plain", desktopID: "b.desktop"))
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let again = ChoiceStore(path: path)
        #expect(again.all == [Choice(caller: "/usr/bin/python3.11", subject: "text/plain", desktopID: "b.desktop"),
                              Choice(caller: "org.example.Cal", subject: "todo", desktopID: "a.desktop")])
        #expect(!ChoiceStore.canRemember(caller: "bad]id") && !ChoiceStore.canRemember(caller: nil))
        #expect(try await again.forget(caller: "org.example.Cal", subject: "todo"))
        #expect(ChoiceStore(path: path).all.count == 1)
    }
}

extension Broker {
    /// ``askPlan(for:caller:)`` for a test caller, a malformed URL being a test failure.
    func askPlan(forChecked url: String, app: String?) -> AskPlan? {
        try? askPlan(for: url, caller: Caller(busName: ":1.9", id: app.flatMap(CallerID.init)))
    }
}
