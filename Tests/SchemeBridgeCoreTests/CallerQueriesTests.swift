import Testing
@testable import SchemeBridgeCore

/// The main interface's queries for a caller named by its bus name (``CallerQueries``): a query
/// waits for a new caller's identification, the `Schemes` property identifies it for next time
/// under query privacy, a sandboxed caller learns no type handlers and changes nothing of the
/// user's; and what each registry change announces (``RegistryAnnouncer``).
@Suite struct CallerQueriesTests {
    /// Queries over `broker`, whose callers are never identified as an app (no pid).
    static func queries(_ broker: Broker) -> CallerQueries {
        CallerQueries(broker: broker, callers: CallerCache(ownAppIDs: [], registry: nil, credentials: { _ in nil }),
                      integration: IntegrationService(broker: broker, ownID: "io.example.Bridge.desktop", log: { _, _ in }),
                      documents: broker.documents!, descriptors: DescriptorWork(), sessionScale: { 1 })
    }

    @Test func aQueryWaitsForANewCallerOnlyOnce() async throws {
        let s = DecidingTests.Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todo"], mimeTypes: ["text/plain"])
        let queries = Self.queries(s.broker())
        #expect(queries.scopeNow(":1.5") == nil, "a caller not identified yet is identified first, even with privacy off")
        #expect(await queries.scope(":1.5") == .all)
        #expect(queries.scopeNow(":1.5") == .all)
        #expect(queries.schemes(for: nil) == ["todo"])
        #expect(await queries.handlers(forType: "text/plain", sender: ":1.5") == ["todo.desktop"])
        #expect(try await queries.defaultHandlerOrigin("text/plain", sender: ":1.5")?.contentType == "text/plain")
        let scheme = try #require(try await queries.defaultHandlerOrigin("todo", sender: ":1.5"))
        #expect(scheme.handler == "todo.desktop" && scheme.contentType == nil)
        #expect(try await queries.defaultHandlerOrigin("nothing", sender: ":1.5") == nil)
    }

    @Test func theServicesDocumentsResolveAlongTheRegistry() {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(1, "notes.desktop", mimeTypes: ["text/plain"])
        let registry = Registry(environment: tree.environment, watch: false, contentTypes: PickingTests.system)
        let documents = Documents(registry: registry, environment: tree.environment)
        #expect(documents.handlers(forType: "text/markdown") == (type: "text/plain", handlers: ["notes.desktop"]), "along the parent chain")
        #expect(documents.types === registry.contentTypes)
    }

    @Test func theSchemesPropertyIdentifiesANewCallerForNextTimeUnderPrivacy() async throws {
        let s = DecidingTests.Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todo"])
        let queries = Self.queries(s.broker(config: "[Policy]\nQueryPrivacy=true\n"))
        #expect(queries.schemes(for: ":1.8") == [], "not identified yet: nothing under query privacy")
        #expect(await waitUntil(timeout: .seconds(20)) { queries.callers.cached(":1.8") != nil } != nil, "identified in the background")
        #expect(queries.schemes(for: nil) == [], "a broadcast names nothing under privacy")
    }

    @Test func aSandboxedCallerChangesNothingOfTheUsers() throws {
        let sandboxed = Caller(busName: ":1.3", id: "org.example.Boxed", sandboxed: true)
        #expect(throws: ServiceFailure(.accessDenied, "a sandboxed app (org.example.Boxed) cannot set the default handler of a scheme")) {
            try SandboxedCallerRule.checkAdminister(sandboxed, "set the default handler of a scheme")
        }
        #expect(throws: Never.self) { try SandboxedCallerRule.checkAdminister(Caller(busName: ":1.4", id: "org.example.App"), "anything") }
    }

    @Test func setDefaultTakesEffectForAnUnsandboxedCaller() async throws {
        let s = DecidingTests.Setup()
        s.tree.entry(1, "a.desktop", schemes: ["todo"])
        s.tree.entry(1, "b.desktop", schemes: ["todo"])
        let queries = Self.queries(s.broker())
        try await queries.setDefault(scheme: "todo", desktopID: DesktopID(fileName: "b.desktop"), sender: ":1.6")
        #expect(try queries.broker.defaultHandler(forScheme: "todo") == "b.desktop")
    }

    @Test func registryChangesAnnounceTheSchemesOnlyWhenTheyChange() async throws {
        let s = DecidingTests.Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todo"])
        let broker = DecidingTests.Setup.broker(tree: s.tree, types: ContentTypeDatabase(mimeDirectories: []), watch: true)
        defer { broker.registry.close() }
        let announcer = RegistryAnnouncer(broker: broker)
        #expect(announcer.announce(["todo"]) == .init(changedSchemes: ["todo"], schemes: nil), "the same schemes: no property change")
        s.tree.entry(1, "notes.desktop", schemes: ["notes"])
        #expect(await waitUntil(timeout: .seconds(30)) { broker.registry.schemes.contains("notes") } != nil)
        #expect(announcer.announce(["notes"]) == .init(changedSchemes: ["notes"], schemes: .changed(["notes", "todo"])))
        #expect(announcer.announce(["notes"]).schemes == nil, "announced once")
        // Under query privacy nothing is named: the property is only invalidated.
        let hidden = DecidingTests.Setup.broker(tree: s.tree, types: ContentTypeDatabase(mimeDirectories: []), config: "[Policy]\nQueryPrivacy=true\n", watch: true)
        defer { hidden.registry.close() }
        let quiet = RegistryAnnouncer(broker: hidden)
        s.tree.entry(1, "mail.desktop", schemes: ["mailx"])
        #expect(await waitUntil(timeout: .seconds(30)) { hidden.registry.schemes.contains("mailx") } != nil)
        #expect(quiet.announce(["mailx"]) == .init(changedSchemes: [], schemes: .invalidated))
    }

    @Test func aFileURLCarriesThePathsBytesOrFailsNamingIt() throws {
        #expect(try SchemeURL.file(Array("/tmp/a b/é".utf8), "the folder").string == "file:///tmp/a%20b/%C3%A9")
        #expect(try SchemeURL.file([0x2F, 0xFF], "the document's path").string == "file:///%FF")
        let long = Array(("/" + String(repeating: "x", count: SchemeURL.maximumByteCount)).utf8)
        #expect(throws: ServiceFailure(.failed, "the folder \(String(decoding: long, as: UTF8.self)) makes no valid URL")) {
            try SchemeURL.file(long, "the folder")
        }
    }
}
