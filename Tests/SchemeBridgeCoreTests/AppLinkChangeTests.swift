import Foundation
import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Issue 41: an entry that declares app links and no scheme appearing, changing or going is
/// announced on ``Registry/changes(appLinks:)`` (what the service's verifier follows), though no
/// scheme changed.
@Suite struct AppLinkChangeTests {
    /// Counts what a stream yields.
    final class Counter: Sendable {
        private let yields = Mutex<[Set<String>]>([])
        private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

        init(_ stream: AsyncStream<Set<String>>) {
            let t = Task { [weak self] in
                for await s in stream { self?.yields.withLock { $0.append(s) } }
            }
            task.withLock { $0 = t }
        }

        var count: Int { yields.withLock { $0.count } }
        var all: [Set<String>] { yields.withLock { $0 } }
    }

    @Test func anEntryDeclaringOnlyAppLinksIsAnnouncedWhenItAppearsChangesAndGoes() async throws {
        let t = XDGTree(dataDirCount: 1)
        let r = t.registry(watch: true)
        defer { r.close() }
        let appLinks = Counter(r.changes(appLinks: true))
        let ceiling = Duration.seconds(60)
        // Announced, and the registry then says so: one change may be announced more than once (the
        // write seen as more than one event), and a late announcement of the last change must not
        // pass for this one's (it once did, beside two CPU hogs: the entry's removal was still unseen).
        func announced(after n: Int, _ what: String, _ seen: () -> Bool) async {
            #expect(await waitUntil(timeout: ceiling) { appLinks.count > n && seen() } != nil, "not announced: \(what)")
        }

        let path = t.entry(1, "org.example.Links.desktop", extra: "X-SchemeBridge-AppLinks=one.example;\n")
        await announced(after: 0, "the entry appeared") { r.appLinkEntries().map(\.id) == ["org.example.Links.desktop"] }
        #expect(r.appLinkEntries().map(\.id) == ["org.example.Links.desktop"])
        let yielded = appLinks.all
        #expect(yielded.allSatisfy { $0.isEmpty }, "no scheme changed: \(yielded)")

        var n = appLinks.count
        t.write(path, XDGTree.desktopFile(schemes: [], extra: "X-SchemeBridge-AppLinks=two.example;\n"))
        await announced(after: n, "its hosts changed") { r.appLinkEntries().flatMap { $0.declaration.hosts.map(\.host) } == ["two.example"] }
        #expect(r.appLinkEntries().flatMap { $0.declaration.hosts.map(\.host) } == ["two.example"])

        n = appLinks.count
        unlink(path)
        await announced(after: n, "it went") { r.appLinkEntries().isEmpty }
        #expect(r.appLinkEntries().isEmpty)
    }

    @Test func anEntryWithoutAppLinksOrSchemesIsNotAnnounced() async throws {
        let t = XDGTree(dataDirCount: 1)
        let r = t.registry(watch: true)
        defer { r.close() }
        let appLinks = Counter(r.changes(appLinks: true))
        // An entry with neither, then one with a scheme: only the second is announced, and
        // its announcement is the first.
        t.entry(1, "plain.desktop")
        t.entry(1, "handler.desktop", schemes: ["later"])
        #expect(await waitUntil(timeout: .seconds(60)) { appLinks.count > 0 } != nil)
        #expect(appLinks.all.first == ["later"], "\(appLinks.all)")
    }

    /// The verifier following the registry (what the service runs): a trusted entry that
    /// declares only app links appears, and its host is fetched with nothing else asking; it
    /// goes, and no app holds the link.
    @Test func theVerifierFetchesTheHostOfAnEntryThatAppearsWithOnlyAppLinks() async throws {
        let server = try AssetLinksServer()
        let host = "appears." + AssetLinksServer.domain
        server.serve(host, #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "freedesktop_app", "app_id": "org.example.Appears"}}]"#)
        let t = XDGTree(dataDirCount: 1)
        var env = t.environment
        env["XDG_CACHE_HOME"] = t.root + "/cache"
        let r = t.registry(watch: true)
        let config = server.config([host])
        let links = AppLinks(registry: r, environment: env, config: { config })
        let verifier = AppLinkVerifier(links: links)
        let following = Task { await verifier.keepFresh(following: r.changes(appLinks: true)) }
        defer {
            r.close()
            following.cancel()
        }
        let url = try SchemeURL("https://\(host)/item/1")
        #expect(links.resolve(url).claimants.isEmpty)

        let path = t.entry(1, "org.example.Appears.desktop", extra: "X-SchemeBridge-AppLinks=\(host);\n")
        #expect(await waitUntil(timeout: .seconds(60)) { links.rows().first?.state == .verified } != nil,
                "not verified: \(links.rows()), fetches \(verifier.fetchCount)")
        #expect(links.resolve(url).app == "org.example.Appears.desktop")
        #expect(verifier.fetchCount == 1)

        unlink(path)
        #expect(await waitUntil(timeout: .seconds(60)) { links.rows().isEmpty } != nil)
        #expect(links.resolve(url).state == .none && links.resolve(url).claimants.isEmpty)
    }
}
