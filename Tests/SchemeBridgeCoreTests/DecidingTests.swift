import Foundation
import Testing
@testable import SchemeBridgeCore

/// The one handler decision (`Broker.decide`, `Broker.settle`) without a bus, for URLs and
/// documents: each level of the precedence (named > pinned x-callback > remembered > route >
/// ask > default), the chooser's candidates, and remembering a pick.
@Suite struct DecidingTests {
    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        /// A broker that opens documents, with a content-type database of no files (every type's
        /// chain is itself, `text/plain` for text, then `application/octet-stream`).
        func broker(config: String = "") -> Broker {
            Self.broker(tree: tree, types: ContentTypeDatabase(mimeDirectories: []), config: config)
        }

        /// A broker over `tree` that opens documents with `types`.
        static func broker(tree: XDGTree, types: ContentTypeDatabase, config: String = "", watch: Bool = false) -> Broker {
            if !config.isEmpty { tree.write(tree.configHome + "/schemebridge/config", config) }
            let registry = Registry(environment: tree.environment, watch: watch, contentTypes: types)
            let documents = Documents(types: types, inbox: Inbox(root: tree.root + "/inbox"), handlersAlongChain: { chain in
                let found = registry.resolution(alongChain: chain)
                return (found.type, found.resolution.handlers)
            })
            return Broker(registry: registry, policy: PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories)),
                          ownDesktopIDs: ["own.desktop"], documents: documents)
        }
    }

    static func caller(_ app: String?) -> Caller { Caller(busName: ":1.9", id: app.flatMap(CallerID.init)) }
    static func url(_ s: String) throws -> OpenSubject { .url(try SchemeURL(s)) }
    static func markdown() throws -> OpenSubject { .document(try ContentType("Text/Markdown")) }
    static func nobodysHandler(_: LaunchedHandler?) async -> Bool { false }

    @Test func aURLGoesByThePrecedence() async throws {
        let s = Setup()
        for id in ["a", "b", "c", "d"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"], extra: "Name=\(id.uppercased())") }
        let broker = s.broker(config: "[Routes]\ntodo from org.example.*=c.desktop\n")
        let cal = Self.caller("org.example.Cal")
        // Default: nil for a URL (admission looks the scheme's default up); with `ask`, a question.
        #expect(try broker.decide(Self.url("todo:x"), requested: nil, ask: false, caller: Self.caller("org.other.App")) == .open(nil, .byDefault))
        let question = HandlerQuestion(subject: "todo", candidates: ["a", "b", "c", "d"].map {
            ChooserCandidate(id: ChooserTargetID("\($0).desktop"), name: $0.uppercased(), icon: "")
        })
        #expect(try broker.decide(Self.url("TODO:x"), requested: nil, ask: true, caller: Self.caller("org.other.App")) == .ask(question))
        // A route beats ask; a remembered choice beats the route; the handler option beats both.
        #expect(try broker.decide(Self.url("todo:x"), requested: nil, ask: true, caller: cal) == .open("c.desktop", .route(callerPattern: "org.example.*")))
        #expect(try await broker.settle(.picked("b.desktop", always: true), to: question, caller: cal, warn: { Issue.record("\($0)") }) == "b.desktop")
        #expect(try broker.decide(Self.url("todo:x"), requested: nil, ask: true, caller: cal) == .open("b.desktop", .remembered))
        #expect(try broker.decide(Self.url("todo:x"), requested: "d.desktop", ask: true, caller: cal) == .open("d.desktop", .requested))
        // `file:` is never routed: nothing to ask, admission refuses it.
        #expect(try broker.decide(Self.url("file:///etc/passwd"), requested: nil, ask: true, caller: cal) == .open(nil, .byDefault))
    }

    /// The pinned x-callback route comes before everything but the handler option: with `ask`
    /// too, the callback goes back to the app that asked, no chooser is shown.
    @Test func aPinnedCallbackBeatsRememberedRouteAndAsk() async throws {
        let s = Setup()
        s.tree.entry(1, "caller.desktop", schemes: ["callerapp"])
        s.tree.entry(1, "thief.desktop", schemes: ["callerapp"])
        let broker = s.broker(config: "[Routes]\ncallerapp from org.example.*=thief.desktop\n")
        let handler = Self.caller("org.example.Handler")
        try await broker.remember("thief.desktop", for: "callerapp", caller: handler)
        let callback = "callerapp://done"
        // Pinned and started, as the service does around a launch (a claim of a route whose start
        // is not recorded yet waits for it).
        let group = try #require(broker.callbackRoutes.pin([callback], to: "caller.desktop", lifetime: .seconds(60)))
        broker.callbackRoutes.started(group, handler: .activated(owner: ":1.42", process: nil))
        let isHandler: (LaunchedHandler?) async -> Bool = { _ in true }
        // Someone else opening it is refused, and the route stays for the handler.
        await #expect(throws: OpenFailure.self) {
            try await broker.decide(Self.url(callback + "?result=stolen"), requested: nil, ask: true, caller: Self.caller("org.other.App"),
                                    isCallbackHandler: Self.nobodysHandler)
        }
        #expect(try await broker.decide(Self.url(callback + "?result=ok"), requested: nil, ask: true, caller: handler,
                                        isCallbackHandler: isHandler) == .open("caller.desktop", .callback))
        // One-shot: afterwards the scheme's own rules decide again.
        #expect(try await broker.decide(Self.url(callback), requested: nil, ask: true, caller: handler,
                                        isCallbackHandler: isHandler) == .open("thief.desktop", .remembered))
        // The handler option is not overridden by a pinned route.
        _ = broker.callbackRoutes.pin([callback], to: "caller.desktop", lifetime: .seconds(60))
        #expect(try await broker.decide(Self.url(callback), requested: "thief.desktop", ask: false, caller: handler,
                                        isCallbackHandler: isHandler) == .open("thief.desktop", .requested))
    }

    @Test func aDocumentGoesByThePrecedenceAlongItsChain() async throws {
        let s = Setup()
        s.tree.entry(1, "plain.desktop", mimeTypes: ["text/plain"])
        s.tree.entry(1, "md1.desktop", mimeTypes: ["text/markdown"], extra: "Icon=md")
        s.tree.entry(1, "md2.desktop", mimeTypes: ["text/markdown"], extra: "X-SchemeBridge-AllowedCallers=org.trusted.*")
        s.tree.entry(1, "own.desktop", mimeTypes: ["text/markdown"])
        let broker = s.broker(config: "[Routes]\ntext/markdown from org.trusted.Editor=md2.desktop\ntext/markdown from org.example.Editor=md2.desktop\n")
        let doc = try Self.markdown()
        let other = Self.caller("org.other.App")
        #expect(try broker.decide(doc, requested: nil, ask: false, caller: other) == .open("md1.desktop", .byDefault))
        // Ask offers the type's handlers that admit the caller, then its parent's (text/plain),
        // as GIO does; SchemeBridge itself is never one.
        #expect(try broker.decide(doc, requested: nil, ask: true, caller: other)
                == .ask(HandlerQuestion(subject: "text/markdown", candidates: [ChooserCandidate(id: "md1.desktop", name: "Test App", icon: "md"),
                                                                               ChooserCandidate(id: "plain.desktop", name: "Test App", icon: "")])))
        #expect(broker.handlers(forType: "text/markdown") == ["md1.desktop", "md2.desktop"])
        // A route beats ask, when its handler admits the caller (md2 admits only org.trusted.*).
        #expect(try broker.decide(doc, requested: nil, ask: true, caller: Self.caller("org.trusted.Editor"))
                == .open("md2.desktop", .route(callerPattern: "org.trusted.Editor")))
        #expect(try broker.decide(doc, requested: nil, ask: false, caller: Self.caller("org.example.Editor")) == .open("md1.desktop", .byDefault))
        // A named handler must open the type or one along its chain (text/plain), and not be us.
        #expect(try broker.decide(doc, requested: "plain.desktop", ask: true, caller: other) == .open("plain.desktop", .requested))
        for bad in ["own.desktop", "nothere.desktop"] {
            #expect(throws: OpenFailure(.invalidHandler, "\(bad) does not open text/markdown documents")) {
                try broker.decide(doc, requested: bad, ask: false, caller: other)
            }
        }
        // Remembered beats ask.
        let question = HandlerQuestion(subject: "text/markdown", candidates: [ChooserCandidate(id: "md1.desktop", name: "Test App", icon: "md")])
        _ = try await broker.settle(.picked("md1.desktop", always: true), to: question, caller: other, warn: { Issue.record("\($0)") })
        #expect(try broker.decide(doc, requested: nil, ask: true, caller: other) == .open("md1.desktop", .remembered))
        // A type nothing opens (not text: no text/plain fallback) is NoHandler.
        #expect(throws: OpenFailure.self) { try broker.decide(.document(ContentType("image/x-nothing")), requested: nil, ask: true, caller: other) }
    }

    /// `open --ask notes.md` offers what `gio open` offers: the Markdown viewer first (the
    /// default), then the `text/plain` editors, each once; an app removed for `text/markdown`
    /// stays away; `application/octet-stream`'s apps only when nothing else opens the type. A
    /// parent's app picked with "Always" is then remembered and used.
    @Test func askOffersTheParentTypesAppsAsGIODoes() async throws {
        let s = Setup()
        for (id, name, types) in [("viewer", "Markdown Viewer", ["text/markdown"]), ("mousepad", "Mousepad", ["text/plain"]),
                                  ("vim", "Vim", ["text/plain", "text/markdown"]), ("removed", "Removed", ["text/plain"]),
                                  ("hex", "Hex", ["application/octet-stream"])] {
            s.tree.write(s.tree.apps(1) + "/\(id).desktop", XDGTree.desktopFile(name: name, schemes: [], mimeTypes: types))
        }
        s.tree.write(s.tree.configHome + "/mimeapps.list", "[Removed Associations]\ntext/markdown=removed.desktop;\n")
        let broker = s.broker()
        let other = Self.caller("org.other.App")
        guard case .ask(let question) = try broker.decide(try Self.markdown(), requested: nil, ask: true, caller: other) else {
            Issue.record("no question")
            return
        }
        #expect(question.candidates.map(\.name) == ["Markdown Viewer", "Vim", "Mousepad"])
        // A type of its own with no handlers but octet-stream's: those are offered.
        guard case .ask(let binary) = try broker.decide(.document(ContentType("application/x-nothing")), requested: nil, ask: true, caller: other) else {
            Issue.record("no question for application/x-nothing")
            return
        }
        #expect(binary.candidates.map(\.id) == ["hex.desktop"])
        // Mousepad, a text/plain app, picked "always" for Markdown: remembered and used.
        #expect(try await broker.settle(.picked("mousepad.desktop", always: true), to: question, caller: other, warn: { Issue.record("\($0)") })
                == "mousepad.desktop")
        #expect(try broker.decide(try Self.markdown(), requested: nil, ask: true, caller: other) == .open("mousepad.desktop", .remembered))
    }

    @Test func aPickIsCheckedAndRememberedOnlyWithAlways() async throws {
        let s = Setup()
        for id in ["a", "b"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        let broker = s.broker()
        let question = HandlerQuestion(subject: "todo", candidates: [ChooserCandidate(id: "a.desktop", name: "A", icon: ""),
                                                                     ChooserCandidate(id: "-x.desktop", name: "X", icon: "")])
        let app = Self.caller("org.example.App")
        await #expect(throws: OpenFailure(.cancelled, "nothing was opened: closed")) {
            try await broker.settle(.cancelled(reason: "closed"), to: question, caller: app, warn: { _ in })
        }
        // Only a candidate the chooser was shown: not another handler, not one never offered.
        for pick in ["b.desktop", "-x.desktop"] {
            await #expect(throws: OpenFailure.self) { try await broker.settle(.picked(ChooserTargetID(pick), always: true), to: question, caller: app, warn: { _ in }) }
        }
        #expect(try await broker.settle(.picked("a.desktop", always: false), to: question, caller: app, warn: { _ in }) == "a.desktop")
        #expect(broker.choices.all.isEmpty, "once is not always")
        // An unidentified caller's "always" opens, and says why it was not remembered.
        var warnings: [String] = []
        #expect(try await broker.settle(.picked("a.desktop", always: true), to: question, caller: Self.caller(nil), warn: { warnings.append($0) }) == "a.desktop")
        #expect(warnings.count == 1 && broker.choices.all.isEmpty, "\(warnings)")
        #expect(try await broker.settle(.picked("a.desktop", always: true), to: question, caller: app, warn: { _ in }) == "a.desktop")
        #expect(broker.choices.all == [Choice(caller: "org.example.App", subject: "todo", desktopID: "a.desktop")])
    }

    @Test func subjectsAreValidatedOnce() throws {
        #expect(try ContentType("Text/Plain").name == "text/plain")
        #expect(throws: OpenFailure.self) { try ContentType("text") }
        #expect(throws: OpenFailure.self) { try ContentType("text/pla in") }
        #expect(try Self.url("ToDo:x").choiceKey == "todo")
        #expect(try Self.url("ToDo:x").contentType == "x-scheme-handler/todo")
        #expect(try Self.markdown().contentType == "text/markdown")
    }
}
