import Foundation
import Testing
@testable import SchemeBridgeCore

/// Picking's rules without a bus (issue 25): which types a pick and a provider speak
/// (wildcards, sub-classes), providers found live from `X-SchemeBridge-Provides`, the decision
/// through the one pipeline (named > remembered > route > the sheet with "Files…"), and the
/// checks on a provider's answer.
@Suite struct PickingTests {
    static let system = ContentTypeDatabase(mimeDirectories: ["/usr/share/mime"])
    static func caller(_ app: String?) -> Caller { Caller(busName: ":1.9", id: app.flatMap(CallerID.init)) }

    @Test func typesMatchWithWildcardsAndSubClasses() throws {
        let db = Self.system
        let png = try PickType("IMAGE/PNG")
        #expect(png.name == "image/png")
        #expect(try PickType("image/*").admits("image/png", types: db))
        #expect(try PickType("*/*").admits("application/pdf", types: db))
        #expect(!png.admits("image/jpeg", types: db))
        // A sub-class counts: markdown is text/plain.
        #expect(try PickType("text/plain").admits("text/markdown", types: db))
        #expect(try !PickType("text/markdown").admits("text/plain", types: db))
        // A provider of image/* has PNGs; a provider of text/plain may have markdown notes.
        #expect(png.overlaps(try PickType("image/*"), types: db))
        #expect(try PickType("text/markdown").overlaps(try PickType("text/plain"), types: db))
        #expect(!png.overlaps(try PickType("text/*"), types: db))
        for bad in ["image", "image/", "*/png", "a b/c", "image/**", ""] {
            #expect(throws: OpenFailure.self) { try PickType(bad) }
        }
    }

    @Test func aSubjectWithoutTypesAsksForEverything() throws {
        #expect(try PickSubject([]).types.map(\.name) == ["*/*"])
        #expect(try PickSubject(["image/png", "IMAGE/png", "image/*"]).types.map(\.name) == ["image/png", "image/*"])
        #expect(try PickSubject(["image/png"]).choiceKey == "pick:image/png")
        #expect(throws: OpenFailure.self) { try PickSubject(Array(repeating: "a/b", count: 65)) }
        // Choices and routes take a pick's key, kept apart from opening the same type.
        #expect(ChoiceSubject.normalized("pick:Image/*") == "pick:image/*")
        #expect(ChoiceSubject.normalized("pick:nonsense") == nil)
        #expect(ChoiceSubject.isPick("pick:image/png") && !ChoiceSubject.isContentType("pick:image/png"))
    }

    @Test func providersAreReadLiveFromTheirEntries() async throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(1, "scanner.desktop", extra: "X-SchemeBridge-Provides=image/png; image/jpeg;bogus;")
        tree.entry(1, "plain.desktop", mimeTypes: ["image/png"])
        let registry = tree.registry(watch: true)
        defer { registry.close() }
        #expect(registry.providers().map(\.id) == ["scanner.desktop"])
        #expect(registry.providedTypes("scanner.desktop").map(\.name) == ["image/png", "image/jpeg"])
        // A new provider counts without a restart.
        tree.entry(1, "notes.desktop", extra: "X-SchemeBridge-Provides=text/*;")
        #expect(await waitUntil(timeout: .seconds(30)) { registry.providers().map(\.id) == ["notes.desktop", "scanner.desktop"] } != nil)
        // Hidden: no longer a provider.
        tree.entry(1, "scanner.desktop", extra: "Hidden=true\nX-SchemeBridge-Provides=image/png;")
        #expect(await waitUntil(timeout: .seconds(30)) { registry.providers().map(\.id) == ["notes.desktop"] } != nil)
    }

    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        func broker(config: String = "") -> Broker {
            if !config.isEmpty { tree.write(tree.configHome + "/schemebridge/config", config) }
            let registry = Registry(environment: tree.environment, watch: false, contentTypes: PickingTests.system)
            let documents = Documents(types: PickingTests.system, inbox: Inbox(root: tree.root + "/inbox"), handlersAlongChain: { chain in
                let found = registry.resolution(alongChain: chain)
                return (found.type, found.resolution.handlers)
            })
            return Broker(registry: registry, policy: PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories)),
                          ownDesktopIDs: ["own.desktop"], documents: documents)
        }
    }

    @Test func aPickGoesThroughTheOnePipeline() async throws {
        let s = Setup()
        s.tree.entry(1, "scanner.desktop", extra: "Name=Scanner\nX-SchemeBridge-Provides=image/png;")
        s.tree.entry(1, "photos.desktop", extra: "Name=Photos\nX-SchemeBridge-Provides=image/*;")
        s.tree.entry(1, "notes.desktop", extra: "Name=Notes\nX-SchemeBridge-Provides=text/plain;")
        s.tree.entry(1, "picky.desktop", extra: "Name=Picky\nX-SchemeBridge-Provides=image/png;\nX-SchemeBridge-AllowedCallers=org.trusted.*;")
        let broker = s.broker(config: "[Routes]\npick:image/png from org.example.*=photos.desktop\n")
        let subject = OpenSubject.pick(try PickSubject(["image/png"]))
        let other = Self.caller("org.other.App")
        // The sheet: the providers of the type that admit the caller, then "Files…"; ask is implied.
        let question = HandlerQuestion(subject: "pick:image/png", candidates: [
            ChooserCandidate(id: "photos.desktop", name: "Photos", icon: ""),
            ChooserCandidate(id: "scanner.desktop", name: "Scanner", icon: ""), Broker.filesCandidate,
        ])
        #expect(try broker.decide(subject, requested: nil, ask: false, caller: other) == .ask(question))
        // A route decides for its callers; a remembered pick beats it; the named provider beats both.
        let cal = Self.caller("org.example.Cal")
        #expect(try broker.decide(subject, requested: nil, ask: false, caller: cal) == .open("photos.desktop", .route(callerPattern: "org.example.*")))
        #expect(try await broker.settle(.picked("scanner.desktop", always: true), to: question, caller: cal, warn: { Issue.record("\($0)") }) == "scanner.desktop")
        #expect(try broker.decide(subject, requested: nil, ask: false, caller: cal) == .open("scanner.desktop", .remembered))
        #expect(broker.choices.choice(caller: "org.example.Cal", subject: "pick:image/png") == "scanner.desktop")
        // Opening PNG documents is not affected by the remembered pick.
        #expect(broker.choices.choice(caller: "org.example.Cal", subject: "image/png") == nil)
        #expect(try broker.decide(subject, requested: "photos.desktop", ask: false, caller: cal) == .open("photos.desktop", .requested))
        // "Files…" can be named; a provider of other types, a mere app, or one that refuses the caller cannot.
        #expect(try broker.decide(subject, requested: ChooserTargetID.files.text, ask: false, caller: other) == .open(.files, .requested))
        for id in ["notes.desktop", "picky.desktop", "nosuch.desktop"] {
            #expect(throws: OpenFailure.self) { try broker.decide(subject, requested: id, ask: false, caller: other) }
        }
        #expect(broker.providers(for: try PickSubject(["image/png"]), caller: Self.caller("org.trusted.App")) == ["photos.desktop", "picky.desktop", "scanner.desktop"])
        // The sheet's answer is checked: not offered is InvalidHandler.
        await #expect(throws: OpenFailure.self) {
            try await broker.settle(.picked("notes.desktop", always: false), to: question, caller: other, warn: { _ in })
        }
    }

    @Test func aProviderStartedWithoutTheUserCountsAsALaunch() throws {
        let s = Setup()
        s.tree.entry(1, "scanner.desktop", extra: "Name=Scanner\nX-SchemeBridge-Provides=image/png;")
        let broker = s.broker(config: "[Policy]\nMaxLaunchRate=0.01\nLaunchBurst=1\n")
        let subject = try PickSubject(["image/png"])
        let caller = Self.caller("org.example.Cal")
        // "Files…" and the sheet start no provider: not charged.
        for _ in 0..<3 {
            #expect(try broker.decidePick(subject, provider: ChooserTargetID.files.text, caller: caller).handler == .files)
            #expect(try broker.decidePick(subject, provider: nil, caller: caller).handler == nil)
        }
        #expect(try broker.decidePick(subject, provider: "scanner.desktop", caller: caller).handler == "scanner.desktop")
        do {
            _ = try broker.decidePick(subject, provider: "scanner.desktop", caller: caller)
            Issue.record("a second provider start passed a burst of one")
        } catch {
            #expect(error.kind == .rateLimited)
        }
    }

    @Test func aProviderIsActivatedOrSpawnedAndItsAnswerBudgeted() throws {
        let s = Setup()
        s.tree.entry(1, "org.example.Scan.desktop", exec: "/bin/scan --provide %u", extra: "DBusActivatable=true\nX-SchemeBridge-Provides=image/png;")
        let entry = try #require(s.tree.registry().entry(id: "org.example.Scan.desktop"))
        #expect(ProviderStart.of(entry) == .activate(busName: "org.example.Scan", objectPath: "/org/example/Scan"))
        // An id that makes no bus name is not activatable (checked when the entry is read): its Exec starts it.
        s.tree.entry(1, "9scan.desktop", exec: "/bin/scan --provide %u", extra: "DBusActivatable=true\nX-SchemeBridge-Provides=image/png;")
        let unnamed = try #require(s.tree.registry().entry(id: "9scan.desktop"))
        #expect(!unnamed.dbusActivatable)
        guard case .spawn(let command)? = ProviderStart.of(unnamed) else { Issue.record("not spawned"); return }
        #expect(command.argv == ["/bin/scan", "--provide"], "no URLs")
        var budget = PickBudget()
        #expect(budget.nextLimit == PickAnswer.maximumDocumentBytes)
        budget.spend(PickAnswer.maximumTotalBytes - 10)
        #expect(budget.nextLimit == 10, "the total bounds the last documents")
    }

    @Test func anAnswerIsCountedNamedAndTyped() throws {
        let db = Self.system
        #expect(throws: OpenFailure.self) { try PickAnswer.checkCount(0, multiple: true) }
        #expect(throws: OpenFailure.self) { try PickAnswer.checkCount(2, multiple: false) }
        #expect(throws: OpenFailure.self) { try PickAnswer.checkCount(PickAnswer.maximumDocuments + 1, multiple: true) }
        try PickAnswer.checkCount(PickAnswer.maximumDocuments, multiple: true)
        #expect(throws: OpenFailure.self) { try PickAnswer.checkLists(names: ["a"], types: [], count: 2) }
        #expect(PickAnswer.name("../../etc/passwd", index: 0) == "passwd")
        #expect(PickAnswer.name("..", index: 1) == "document-2")
        #expect(PickAnswer.name("a\u{0}b\nc.png", index: 0) == "abc.png")
        #expect(PickAnswer.name(String(repeating: "é", count: 200), index: 0).utf8.count == 254)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24)
        let images = try PickSubject(["image/*"])
        #expect(try PickAnswer.type(claimed: nil, name: "scan", head: png, subject: images, types: db) == "image/png")
        #expect(try PickAnswer.type(claimed: "image/png", name: "scan.png", head: png, subject: images, types: db) == "image/png")
        // A type the caller did not ask for, or a claim the content contradicts, is refused.
        #expect(throws: OpenFailure.self) {
            try PickAnswer.type(claimed: nil, name: "notes.txt", head: Array("hello\n".utf8), subject: images, types: db)
        }
        #expect(throws: OpenFailure.self) {
            try PickAnswer.type(claimed: "text/plain", name: "scan.png", head: png, subject: try PickSubject(["text/plain"]), types: db)
        }
        #expect(throws: OpenFailure.self) {
            try PickAnswer.type(claimed: "image/jpeg", name: "scan.jpg", head: png, subject: images, types: db)
        }
        #expect(throws: OpenFailure.self) {
            try PickAnswer.type(claimed: "image/png", name: "notes", head: Array("hello\n".utf8), subject: images, types: db)
        }
        // Text claimed as a text sub-class, and unknown bytes claimed as anything asked for, pass.
        #expect(try PickAnswer.type(claimed: "text/markdown", name: "n.md", head: Array("# hi\n".utf8), subject: try PickSubject(["text/*"]), types: db) == "text/markdown")
        #expect(try PickAnswer.type(claimed: "image/x-raw", name: "r", head: [0, 1, 2, 250, 251], subject: images, types: db) == "image/x-raw")
    }
}
