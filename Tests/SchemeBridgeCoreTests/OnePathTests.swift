import Foundation
import LinuxSystem
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The one path after the decision, without a bus: the one ask-and-settle step
/// (``Broker/settle(_:for:caller:chooser:context:warn:)``) over a chooser port, and the launch
/// plans every flow hands the one launcher (a URL, a document, a share, a pick's provider).
@Suite struct OnePathTests {
    /// A chooser port that answers as told and records what it was asked.
    final class FakeChooser: ChooserPort {
        let answer: Result<ChooserAnswer, OpenFailure>
        let asked = Mutex<[(HandlerQuestion, Caller, ChooserContext)]>([])

        init(_ answer: ChooserAnswer) { self.answer = .success(answer) }
        init(failing failure: OpenFailure) { self.answer = .failure(failure) }

        func choose(_ question: HandlerQuestion, caller: Caller, context: ChooserContext) async throws(OpenFailure) -> ChooserAnswer {
            asked.withLock { $0.append((question, caller, context)) }
            return try answer.get()
        }
        var count: Int { asked.withLock { $0.count } }
    }

    static let app = Caller(busName: ":1.9", id: "org.example.App")
    static let question = HandlerQuestion(subject: "todo", candidates: [ChooserCandidate(id: "a.desktop", name: "A", icon: ""),
                                                                        ChooserCandidate(id: "b.desktop", name: "B", icon: "")])

    /// A broker over `a` and `b` (both open `todo:`), and whatever `more` installs first.
    func broker(_ more: (XDGTree) -> Void = { _ in }) -> (DecidingTests.Setup, Broker) {
        let s = DecidingTests.Setup()
        for id in ["a", "b"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        more(s.tree)
        return (s, s.broker())
    }

    @Test func aDecidedHandlerStandsAndNoChooserIsShown() async throws {
        let (_, broker) = broker()
        let chooser = FakeChooser(.picked("b.desktop", always: false))
        for flow in [DecisionFlow.open, .share, .pick] {
            let settled = try await broker.settle(.open("a.desktop", .route(callerPattern: "org.*")), for: flow, caller: Self.app, chooser: chooser,
                                                  context: ChooserContext(), warn: { Issue.record("\($0)") })
            #expect(settled == SettledHandler(id: "a.desktop", reason: .route(callerPattern: "org.*")))
            #expect(!settled.pinnedCallback)
        }
        let pinned = try await broker.settle(.open("a.desktop", .callback), for: .open, caller: Self.app, chooser: chooser, context: ChooserContext(), warn: { _ in })
        #expect(pinned.pinnedCallback)
        #expect(chooser.count == 0)
    }

    @Test func nothingDecidedIsTheDefaultForAnOpenAndAFailureForAShareOrAPick() async throws {
        let (_, broker) = broker()
        let chooser = FakeChooser(.picked("a.desktop", always: false))
        let open = try await broker.settle(.open(nil, .byDefault), for: .open, caller: Self.app, chooser: chooser, context: ChooserContext(), warn: { _ in })
        #expect(open == SettledHandler(id: nil, reason: .byDefault))
        await #expect(throws: OpenFailure(.noTarget, "nothing accepts the items")) {
            try await broker.settle(.open(nil, .byDefault), for: .share, caller: Self.app, chooser: chooser, context: ChooserContext(), warn: { _ in })
        }
        await #expect(throws: OpenFailure(.noHandler, "no provider was decided")) {
            try await broker.settle(.open(nil, .byDefault), for: .pick, caller: Self.app, chooser: chooser, context: ChooserContext(), warn: { _ in })
        }
        #expect(chooser.count == 0)
    }

    @Test func aQuestionGoesToTheChooserAndItsPickIsSettled() async throws {
        let (_, broker) = broker()
        let chooser = FakeChooser(.picked("b.desktop", always: true))
        let context = ChooserContext(activationToken: "tok", title: "Pick one", share: nil)
        let settled = try await broker.settle(.ask(Self.question), for: .open, caller: Self.app, chooser: chooser, context: context,
                                              warn: { Issue.record("\($0)") })
        #expect(settled == SettledHandler(id: "b.desktop", reason: nil))
        let asked = try #require(chooser.asked.withLock { $0.first })
        #expect(asked.0 == Self.question && asked.1.appID == "org.example.App" && asked.2 == context)
        // "Always": remembered for the caller.
        #expect(broker.choices.all == [Choice(caller: "org.example.App", subject: "todo", desktopID: "b.desktop")])
    }

    @Test func aChooserAnswerThatIsNoCandidateOrNoPickFails() async throws {
        let (_, broker) = broker()
        await #expect(throws: OpenFailure.self) {
            try await broker.settle(.ask(Self.question), for: .open, caller: Self.app, chooser: FakeChooser(.picked("c.desktop", always: true)),
                                    context: ChooserContext(), warn: { _ in })
        }
        await #expect(throws: OpenFailure(.cancelled, "nothing was opened: closed")) {
            try await broker.settle(.ask(Self.question), for: .share, caller: Self.app, chooser: FakeChooser(.cancelled(reason: "closed")),
                                    context: ChooserContext(), warn: { _ in })
        }
        await #expect(throws: OpenFailure(.noChooser, "nothing was opened: no display")) {
            try await broker.settle(.ask(Self.question), for: .pick, caller: Self.app, chooser: FakeChooser(.failed(reason: "no display")),
                                    context: ChooserContext(), warn: { _ in })
        }
        // The port's own failure (a chooser already open for the caller) is the caller's error as it is.
        await #expect(throws: OpenFailure(.rateLimited, "busy")) {
            try await broker.settle(.ask(Self.question), for: .open, caller: Self.app, chooser: FakeChooser(failing: OpenFailure(.rateLimited, "busy")),
                                    context: ChooserContext(), warn: { _ in })
        }
        #expect(broker.choices.all.isEmpty)
    }

    @Test func everyFlowsPlanCarriesTypedTargets() throws {
        let s = ChoosingTests.Setup()
        s.tree.entry(1, "a.desktop", schemes: ["todo"])
        s.tree.entry(1, "viewer.desktop", mimeTypes: ["text/plain"], exec: "/bin/viewer %U")
        s.tree.entry(1, "org.example.Scan.desktop", exec: "/bin/scan %u", extra: "DBusActivatable=true\nX-SchemeBridge-Provides=image/png;")
        let broker = s.broker()
        let registry = broker.registry
        // A URL: the URL itself, opened.
        let url = try SchemeURL("todo:x")
        let plan = try broker.router.plan(url.string, handler: "a.desktop", searchPath: ["/bin"])
        #expect(plan.targets == .url(url) && plan.url == url && plan.purpose == .open && plan.call == .open)
        // A document: its file URL.
        let file = try SchemeURL("file:///tmp/inbox/a.txt")
        let viewer = try #require(registry.entry(id: "viewer.desktop"))
        let document = try broker.router.plan(document: file, entry: viewer, searchPath: ["/bin"])
        #expect(document.targets == .documents([file]) && document.purpose == .open)
        // A share of no file hands nothing URL-shaped: no stand-in.
        let share = try broker.admit(share: .openIn(desktopID: "viewer.desktop"), files: [], caller: Self.app, activationToken: nil, searchPath: ["/bin"])
        #expect(share.plan.targets == .documents([]) && share.plan.url == nil && share.plan.purpose == .share)
        guard case .spawn(let commands) = share.plan.action else { Issue.record("not spawned"); return }
        #expect(commands.first?.argv == ["/bin/viewer"])
        // A pick's provider: nothing but its token; activated with Activate.
        let provider = try broker.providerPlan("org.example.Scan.desktop")
        #expect(provider.targets == .nothing && provider.call == .activate && provider.purpose == .pick)
        #expect(provider.action == .activate(busName: "org.example.Scan", objectPath: "/org/example/Scan"))
        #expect(throws: OpenFailure(.invalidHandler, "gone.desktop is no longer installed")) { try broker.providerPlan("gone.desktop") }
    }

    @Test func whatEachPurposeRemembersAndSays() throws {
        #expect(LaunchPurpose.share.passesURIsInPlatformData && !LaunchPurpose.open.passesURIsInPlatformData && !LaunchPurpose.pick.passesURIsInPlatformData)
        #expect(!LaunchPurpose.share.watchesActivatedOwner && LaunchPurpose.open.watchesActivatedOwner && LaunchPurpose.pick.watchesActivatedOwner)
        #expect(LaunchPurpose.open.usesActivationToken && LaunchPurpose.share.usesActivationToken && !LaunchPurpose.pick.usesActivationToken)
        let (_, broker) = broker()
        let entry = try #require(broker.registry.entry(id: "a.desktop"))
        let failure = LaunchPlan(targets: .nothing, entry: entry, action: .activate(busName: "a", objectPath: "/a"), call: .activate, purpose: .pick)
            .activationFailure("org.freedesktop.DBus.Error.UnknownMethod", "no")
        #expect(failure.kind == .launchFailed && failure.message.hasSuffix("could not be activated: org.freedesktop.DBus.Error.UnknownMethod: no"))
    }
}

/// The warm share sheet's restart rule (`SheetSpare.backoff`), moved from the daemon.
@Suite struct SheetSpareBackoffTests {
    @Test func aSpareThatKeepsEndingWaitsLongerUpToFiveMinutes() {
        var failures = 0
        var delays: [Int] = []
        for _ in 0..<12 {
            let next = SheetSpare.backoff(failures: failures, lived: .seconds(2))
            failures = next.failures
            delays.append(next.delay)
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        // One that lived a minute starts the count again.
        #expect(SheetSpare.backoff(failures: 9, lived: .seconds(60)) == (1, 1))
    }
}

/// One of each small thing (issue 36 item 5): the %-encoding, the URL text, the typed request,
/// the registry told of a config change by the store (never by a lookup), the caller cache,
/// the splash helper's arguments, a pick's documents taken.
@Suite struct OneOfEachTests {
    @Test func oneEncoderAndDecoder() {
        #expect(PercentEncoding.fileURL(path: "/tmp/a b/ä#.txt") == "file:///tmp/a%20b/%C3%A4%23.txt")
        #expect(PercentEncoding.fileURL([0x2F, 0xE9]) == "file:///%E9", "a byte that is not UTF-8 is encoded as it is")
        #expect(PercentEncoding.encode("a/b c".utf8) == "a%2Fb%20c")
        #expect(PercentEncoding.decode("a%2Fb%20c".utf8, strict: true) == Array("a/b c".utf8))
        #expect(PercentEncoding.decode("100%".utf8, strict: true) == nil, "a URL's path: a stray % is no path")
        #expect(PercentEncoding.decode("100%zz".utf8, strict: false) == Array("100%zz".utf8), "text from elsewhere keeps it")
        #expect(PercentEncoding.decode("a+b".utf8, strict: false, plusIsSpace: true) == Array("a b".utf8))
        // Its users: an engine's file URL, a query value, a URL's local path.
        #expect(ReceivedShare(engineArgument: "file:///home/u/Downloads/a%20b.txt") == .file("/home/u/Downloads/a b.txt"))
        #expect(XCallback.callbacks(in: "app://x?x-success=cb%3A%2F%2Fok+now") == ["cb://ok now"])
        #expect((try? SchemeURL("file:///tmp/a%20b"))?.localFilePath == "/tmp/a b")
    }

    @Test func oneURLText() {
        #expect(URLText.shortened(String(repeating: "a", count: 150), limit: 100) == String(repeating: "a", count: 100) + "…")
        #expect(URLText.shortened("a\u{7}b") == "a?b")
        #expect(URLText.sanitized("a\0b", maxBytes: 10) == "ab")
        #expect(URLText.sanitized("abcdef", maxBytes: 3) == "abc")
    }

    @Test func aRequestKeepsItsParsedURL() throws {
        let caller = Caller(busName: ":1.9")
        let request = try OpenRequest(url: "TODO:x", caller: caller)
        #expect(request.url.scheme.name == "todo")
        #expect(throws: OpenFailure.self) { try OpenRequest(url: "no scheme", caller: caller) }
        do { _ = try OpenRequest(url: "no scheme", caller: caller) } catch { #expect(error.kind == .invalidURL) }
    }

    @Test func theStoreTellsTheRegistryOfAConfigChangeALookupWritesNothing() async throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "todo.desktop", schemes: ["todolist"])
        let path = t.configHome + "/schemebridge/config"
        let store = PolicyStore(path: path)
        let told = Mutex<[Set<String>]>([])
        store.onChange { config in told.withLock { $0.append(config.reservedSchemes) } }
        let router = URLRouter(registry: t.registry(), ownDesktopIDs: [], policyStore: store)
        #expect(router.reservedSchemes == Policy.defaultReservedSchemes)
        #expect(told.withLock { $0 }.isEmpty, "reading changes nothing")
        t.write(path, "[Policy]\nExtraReservedSchemes=todolist;\n")
        let seen = await waitUntil(timeout: .seconds(30)) { router.reservedSchemes.contains("todolist") }
        #expect(seen != nil)
        #expect(told.withLock { $0 }.last?.contains("todolist") == true, "the store told its observers once it read the change")
    }

    @Test func theCallerCacheAsksTheBusOnceAndForgets() async {
        let asked = Mutex(0)
        let cache = CallerCache(ownAppIDs: [], registry: nil, credentials: { _ in asked.withLock { $0 += 1 }; return nil })
        async let first = cache.caller(":1.5")
        async let second = cache.caller(":1.5")
        let (a, b) = await (first, second)
        #expect(a.appID == nil && b.appID == nil && a.busName == ":1.5")
        #expect(asked.withLock { $0 } == 1 && cache.cached(":1.5") != nil && cache.count == 1)
        cache.forget(":1.5")
        #expect(cache.cached(":1.5") == nil)
        _ = await cache.caller(":1.5")
        #expect(asked.withLock { $0 } == 2)
    }

    /// A connection's process once it has called is its identity's (a unique name's process never
    /// changes); any other name's — a well-known name, a connection that never called — is asked.
    @Test func aKnownCallersProcessIsNotAskedAgain() async {
        let asked = Mutex<[String]>([])
        let cache = CallerCache(ownAppIDs: [], registry: nil, credentials: { name in asked.withLock { $0.append(name) }; return 4242 })
        _ = await cache.caller(":1.5")
        #expect(await cache.processID(of: ":1.5") == 4242)
        #expect(await cache.processID(of: "org.example.App") == 4242)
        #expect(asked.withLock { $0 } == [":1.5", "org.example.App"], "the caller's identification asked once; the name each time")
        cache.forget(":1.5")
        #expect(await cache.processID(of: ":1.5") == 4242)
        #expect(asked.withLock { $0 }.count == 3, "a forgotten caller is asked again")
    }

    @Test func theSplashHelperIsToldTheAdmittedTimes() throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "app.desktop", schemes: ["app"], extra: "StartupWMClass=App")
        let entry = try #require(t.registry().entry(id: "app.desktop"))
        var config = PolicyConfig()
        config.splashShowDelay = 5
        #expect(SplashHelper.arguments(helper: "/h", image: "/i.png", pid: 7, startupID: "s", entry: entry, config: config)
            == ["/h", "--image", "/i.png", "--startup-id", "s", "--show-delay-ms", "5", "--min-show-ms", "\(config.splashMinimumDuration)",
                "--timeout-ms", "\(config.splashTimeout)", "--pid", "7", "--wm-class", "App"])
    }

    @Test func aPicksDocumentsAreCheckedAndCopied() throws {
        let t = XDGTree(dataDirCount: 1)
        let file = t.root + "/note.txt"
        t.write(file, "hello")
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let subject = try PickSubject(["text/plain"])
        let taken = try PickAnswer.take([fd], names: ["note.txt"], types: ["text/plain"], subject: subject, database: ContentTypeDatabase(mimeDirectories: []))
        #expect(taken.count == 1 && taken[0].name == "note.txt" && taken[0].type == "text/plain" && taken[0].data.size == 5)
        // Not a regular file: refused.
        let dir = open(t.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(dir) }
        #expect(throws: OpenFailure.self) { try PickAnswer.take([dir], names: [], types: [], subject: subject, database: ContentTypeDatabase(mimeDirectories: [])) }
    }
}
