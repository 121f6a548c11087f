import Foundation
import Testing
@testable import SchemeBridgeCore

/// App links in the one decision (issue 41): an https link is a subject like a scheme — the
/// caller's remembered choice and `[Routes]` apply, `ask` offers the apps that hold the link and
/// the browsers, and a held link with nothing else deciding opens in its app; admission plans
/// that app with the URL as its `%u`. A real registry over a temp XDG tree, records stored as the
/// verifier stores them; no network.
@Suite struct AppLinkDecidingTests {
    struct Setup {
        let tree = XDGTree(dataDirCount: 2)
        let links: AppLinks
        let broker: Broker

        /// Two browsers in a system data dir; Todo and TodoLite (system entries) claim
        /// todo.example, Todo not under /help/; Other claims it too but the host names only the
        /// first two.
        init(config: String = "") {
            tree.entry(1, "browser.desktop", schemes: ["https", "http"], extra: "Name=Browser")
            tree.entry(1, "second-browser.desktop", schemes: ["https"], extra: "Name=Second")
            tree.entry(2, "org.example.Todo.desktop", exec: "/opt/todo --link %u",
                       extra: "X-SchemeBridge-AppLinks=todo.example;\nX-SchemeBridge-AppLinks-Paths=!/help/*;\n")
            tree.entry(2, "org.example.TodoLite.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
            tree.entry(2, "org.example.Other.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
            if !config.isEmpty { tree.write(tree.configHome + "/schemebridge/config", config) }
            var env = tree.environment
            env["XDG_CACHE_HOME"] = tree.root + "/cache"
            let registry = tree.registry()
            links = AppLinks(registry: registry, environment: env, config: { AppLinkConfig() }, now: { 1000 })
            var record = AppLinkRecord(host: "todo.example", checked: 1000, expires: 90_000, apps: ["org.example.Todo", "org.example.TodoLite"],
                                       failure: nil, source: "https://todo.example/.well-known/assetlinks.json", address: "127.0.0.1:443", status: 200)
            links.store(&record)
            broker = Broker(registry: registry, policy: PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories)),
                            ownDesktopIDs: ["own.desktop"], appLinks: links)
        }

        func decide(_ url: String, ask: Bool = false, _ caller: Caller = AppLinkDecidingTests.caller("org.example.Chat")) throws -> HandlerDecision {
            try broker.decide(.url(SchemeURL(url)), requested: nil, ask: ask, caller: caller)
        }

        func admit(_ url: String, handler: String? = nil, _ caller: Caller = AppLinkDecidingTests.caller("org.example.Chat")) throws(OpenFailure) -> Admission {
            try broker.admit(OpenRequest(url: url, handler: handler.map(DesktopID.init(fileName:)), caller: caller), searchPath: ["/usr/bin", "/bin"], sessionScale: 1, splashAvailable: false)
        }
    }

    static func caller(_ app: String?) -> Caller { Caller(busName: ":1.9", id: app.flatMap(CallerID.init)) }
    static func argv(_ a: Admission) -> [String] {
        if case .spawn(let commands) = a.plan.action { return commands.first?.argv ?? [] }
        return []
    }

    @Test func aHeldLinkOpensInItsAppAndEveryOtherInTheBrowser() throws {
        let s = Setup()
        #expect(try s.decide("https://todo.example/u/42?x=1") == .open("org.example.Todo.desktop", .appLink))
        #expect(try s.decide("https://TODO.example./u/42") == .open("org.example.Todo.desktop", .appLink), "the host is normalised")
        // Excluded by Todo's paths: the next app the host names holds it.
        #expect(try s.decide("https://todo.example/help/1") == .open("org.example.TodoLite.desktop", .appLink))
        // No app holds these: the scheme's default (the browser), as before.
        #expect(try s.decide("https://elsewhere.example/") == .open(nil, .byDefault))
        #expect(try s.decide("http://todo.example/u/42") == .open(nil, .byDefault), "plain http is never an app link")
        #expect(try s.decide("https://todo.example:8443/u/42") == .open(nil, .byDefault), "another port is never an app link")

        let held = try s.admit("https://todo.example/u/42?x=1")
        #expect(held.plan.entry.id == "org.example.Todo.desktop")
        #expect(Self.argv(held) == ["/opt/todo", "--link", "https://todo.example/u/42?x=1"], "the app gets the URL as its %u")
        let browsed = try s.admit("https://elsewhere.example/a%20b")
        #expect(browsed.plan.entry.id == "browser.desktop")
        // Named by the caller: a holder is planned as the link's app; a claimant the host does not name is no handler.
        #expect(try s.admit("https://todo.example/u/1", handler: "org.example.TodoLite.desktop").plan.entry.id == "org.example.TodoLite.desktop")
        var refused: OpenFailure?
        do { _ = try s.admit("https://todo.example/u/1", handler: "org.example.Other.desktop") } catch { refused = error }
        #expect(refused?.kind == .invalidHandler, "\(String(describing: refused))")
    }

    @Test func askOffersTheHoldersThenTheBrowsers() throws {
        let s = Setup()
        guard case .ask(let q) = try s.decide("https://todo.example/u/42", ask: true) else { Issue.record("no question"); return }
        #expect(q.subject == "https")
        #expect(q.candidates.map(\.id) == ["org.example.Todo.desktop", "org.example.TodoLite.desktop", "browser.desktop", "second-browser.desktop"])
        guard case .ask(let unheld) = try s.decide("https://elsewhere.example/", ask: true) else { Issue.record("no question"); return }
        #expect(unheld.candidates.map(\.id) == ["browser.desktop", "second-browser.desktop"])
    }

    @Test func routesAndRememberedChoicesApplyToLinks() async throws {
        let s = Setup(config: """
            [Routes]
            https from org.example.Chat=second-browser.desktop
            https from org.example.Mail=org.example.TodoLite.desktop
            https from org.example.Feed=org.example.Other.desktop
            """)
        // A route to a browser beats the link's app.
        #expect(try s.decide("https://todo.example/u/1", Self.caller("org.example.Chat")) == .open("second-browser.desktop", .route(callerPattern: "org.example.Chat")))
        #expect(try s.admit("https://todo.example/u/1", Self.caller("org.example.Chat")).plan.entry.id == "second-browser.desktop")
        // A route to another holder; the same route on a host that app does not hold does not apply.
        #expect(try s.decide("https://todo.example/u/1", Self.caller("org.example.Mail")) == .open("org.example.TodoLite.desktop", .route(callerPattern: "org.example.Mail")))
        #expect(try s.decide("https://elsewhere.example/", Self.caller("org.example.Mail")) == .open(nil, .byDefault))
        // A route to an app that claims the host but is not named by it is not used.
        #expect(try s.decide("https://todo.example/u/1", Self.caller("org.example.Feed")) == .open("org.example.Todo.desktop", .appLink))

        // "Always" in the chooser: remembered under the scheme, for that caller.
        let reader = Self.caller("org.example.Reader")
        guard case .ask(let q) = try s.decide("https://todo.example/u/1", ask: true, reader) else { Issue.record("no question"); return }
        #expect(try await s.broker.settle(.picked("browser.desktop", always: true), to: q, caller: reader, warn: { Issue.record("\($0)") }) == "browser.desktop")
        #expect(try s.decide("https://todo.example/u/1", reader) == .open("browser.desktop", .remembered))
        #expect(try s.decide("https://todo.example/u/1", ask: true, reader) == .open("browser.desktop", .remembered), "no chooser once remembered")
        #expect(try s.admit("https://todo.example/u/1", reader).plan.entry.id == "browser.desktop")
        #expect(try s.decide("https://todo.example/u/1", Self.caller("org.example.Other")) == .open("org.example.Todo.desktop", .appLink),
                "another caller's choice is its own")
    }

    @Test func aHolderThatRefusesTheCallerLeavesTheLinkToTheBrowser() throws {
        let s = Setup()
        s.tree.entry(2, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\nX-SchemeBridge-AllowedCallers=org.example.Friend;\n")
        let registry = s.tree.registry()
        var env = s.tree.environment
        env["XDG_CACHE_HOME"] = s.tree.root + "/cache"
        let links = AppLinks(registry: registry, environment: env, config: { AppLinkConfig() }, now: { 1000 })
        let broker = Broker(registry: registry, policy: PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories)),
                            ownDesktopIDs: ["own.desktop"], appLinks: links)
        let url = OpenSubject.url(try SchemeURL("https://todo.example/u/1"))
        #expect(try broker.decide(url, requested: nil, ask: false, caller: Self.caller("org.example.Friend")) == .open("org.example.Todo.desktop", .appLink))
        #expect(try broker.decide(url, requested: nil, ask: false, caller: Self.caller("org.example.Chat")) == .open("org.example.TodoLite.desktop", .appLink))
    }
}
