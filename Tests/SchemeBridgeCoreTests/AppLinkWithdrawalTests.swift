import Foundation
import Testing
@testable import SchemeBridgeCore

/// What a later fetch does to an earlier endorsement (issue 41): a transient failure — an HTTP
/// 5xx, no answer in time, a name that does not resolve — keeps it until its max-age ends; a
/// definite answer — a 404, a file that no longer names the app — withdraws it at once. The real
/// fetcher against the local HTTPS server, the clock the test's.
@Suite(.serialized) struct AppLinkWithdrawalTests {
    let server: AssetLinksServer
    init() throws { server = try AssetLinksServer() }

    final class Clock: @unchecked Sendable {
        var value: Int64 = 1000
    }

    final class Settings: @unchecked Sendable {
        var value: AppLinkConfig
        init(_ value: AppLinkConfig) { self.value = value }
    }

    struct World {
        let tree = XDGTree(dataDirCount: 1)
        let links: AppLinks
        let clock = Clock()
        let settings: Settings
        let url: SchemeURL

        init(_ server: AssetLinksServer, host: String) throws {
            tree.entry(1, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=\(host);\n")
            var env = tree.environment
            env["XDG_CACHE_HOME"] = tree.root + "/cache"
            let (clock, settings) = (self.clock, Settings(server.config([host], timeout: 1)))
            self.settings = settings
            links = AppLinks(registry: tree.registry(), environment: env, config: { settings.value }, now: { clock.value })
            url = try SchemeURL("https://\(host)/u/1")
        }
    }

    func site(_ host: String) -> String { server.root + "/sites/" + host }

    @Test func aTransientFailureKeepsTheEndorsementUntilItsMaxAgeEnds() throws {
        let host = "keep.applinks.test"
        let w = try World(server, host: host)
        server.serve(host, AssetLinksServer.statement("org.example.Todo"), headers: "Cache-Control: max-age=3600\n")
        #expect(w.links.fetch(host).endorsedUntil == 1000 + 3600)
        #expect(w.links.resolve(w.url).state == .verified)

        // A 503: nothing said about the file; the endorsement stands, and is tried again soon.
        try "503".write(toFile: site(host) + "/status", atomically: false, encoding: .utf8)
        w.clock.value = 2000
        let unavailable = w.links.fetch(host)
        #expect(unavailable.failure == "HTTP 503" && unavailable.transient, "\(unavailable)")
        #expect(unavailable.apps == ["org.example.Todo"] && unavailable.endorsedUntil == 4600 && unavailable.expires == 2000 + 60, "\(unavailable)")
        #expect(w.links.resolve(w.url).state == .verified)

        // No answer in time.
        try FileManager.default.removeItem(atPath: site(host) + "/status")
        _ = FileManager.default.createFile(atPath: site(host) + "/hold", contents: nil)
        w.clock.value = 3000
        let slow = w.links.fetch(host)
        server.release()
        try FileManager.default.removeItem(atPath: site(host) + "/hold")
        #expect(slow.failure == "no answer within 1 s" && slow.transient && slow.endorsedUntil == 4600, "\(slow)")
        #expect(w.links.resolve(w.url).state == .verified)

        // The name does not resolve (no [AppLinks] Resolve for it: the .test domain is never in DNS).
        w.settings.value = server.config([], timeout: 2)
        w.clock.value = 4000
        let dns = w.links.fetch(host)
        #expect(dns.transient && dns.failure != nil && dns.endorsedUntil == 4600, "\(dns)")
        #expect(w.links.resolve(w.url).state == .verified)

        // Its max-age ends: withdrawn, though the last answers still carry the app.
        w.clock.value = 4600
        let ended = w.links.resolve(w.url)
        #expect(ended.state == .none && ended.app == nil, "\(ended)")
        // Kept in the cache as it is.
        #expect(AppLinkCacheFile.decode(AppLinkCacheFile.encode([host: dns]), path: "x")[host] == dns)
    }

    @Test func aDefiniteAnswerWithdrawsTheEndorsementAtOnce() throws {
        for (name, change) in [("404", "404"), ("names another app", "")] {
            let host = "withdraw-\(name == "404" ? "gone" : "other").applinks.test"
            let w = try World(server, host: host)
            server.serve(host, AssetLinksServer.statement("org.example.Todo"), headers: "Cache-Control: max-age=3600\n")
            w.links.fetch(host)
            #expect(w.links.resolve(w.url).state == .verified, "\(name)")
            if change.isEmpty {
                server.serve(host, AssetLinksServer.statement("org.example.Someone"))
            } else {
                try change.write(toFile: site(host) + "/status", atomically: false, encoding: .utf8)
            }
            w.clock.value = 1100
            let r = w.links.fetch(host)
            #expect(!r.transient && !r.apps.contains("org.example.Todo"), "\(name): \(r)")
            let now = w.links.resolve(w.url)
            #expect(now.state == .none && now.app == nil, "\(name): withdrawn within the old max-age: \(now)")
        }
    }
}
