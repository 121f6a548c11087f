import Foundation
import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Issue 41: what an open of a claimed link no app holds asks of the verifier
/// (``AppLinks/linkNotHeld(_:)``).
@Suite struct AppLinkDemandTests {
    final class Clock: Sendable {
        let value = Mutex<Int64>(1000)
        var now: Int64 { value.withLock { $0 } }
        func advance(_ s: Int64) { value.withLock { $0 += s } }
    }

    @Test func anUnheldClaimIsHandedOverOnceAMinuteAHostOnlyWhenDueAndOnlyForTrustedClaimants() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(1, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=*.todo.example;fresh.example;\n")
        tree.entry(0, "org.example.Mine.desktop", extra: "X-SchemeBridge-AppLinks=mine.example;\n")  // the user's: never verified
        var env = tree.environment
        env["XDG_CACHE_HOME"] = tree.root + "/cache"
        let clock = Clock()
        let links = AppLinks(registry: tree.registry(), environment: env, config: { AppLinkConfig() }, now: { clock.now })
        let asked = Mutex<[[String]]>([])
        links.onUnverifiedClaim { hosts in asked.withLock { $0.append(hosts) } }
        func open(_ url: String) throws -> [String] { links.linkNotHeld(links.resolve(try SchemeURL(url))) }

        // A wildcard claim is verified at the host it names.
        #expect(try open("https://a.todo.example/x") == ["todo.example"])
        #expect(try open("https://b.todo.example/y") == [], "asked within the minute")
        clock.advance(AppLinks.demandInterval)
        #expect(try open("https://a.todo.example/x") == ["todo.example"], "still no record a minute later: asked again")
        // A host with a record that has not expired (a failure waiting out its retry delay included).
        var record = AppLinkRecord(host: "fresh.example", checked: clock.now, expires: clock.now + 60, apps: [], failure: "HTTP 404",
                                   source: "https://fresh.example/.well-known/assetlinks.json", address: "127.0.0.1:443", status: 404)
        links.store(&record)
        #expect(try open("https://fresh.example/") == [])
        clock.advance(61)
        #expect(try open("https://fresh.example/") == ["fresh.example"], "expired: due again")
        // Untrusted claimants, links nobody claims, and links an app holds ask for nothing.
        #expect(try open("https://mine.example/") == [])
        #expect(try open("https://nobody.example/") == [])
        #expect(asked.withLock { $0 } == [["todo.example"], ["todo.example"], ["fresh.example"]])
    }

    @Test func theVerifierQueuesWhatAnOpenHandsOver() async throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(1, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
        var env = tree.environment
        env["XDG_CACHE_HOME"] = tree.root + "/cache"
        // Nothing listens at this address: the fetch fails at once, and is recorded.
        var config = AppLinkConfig()
        config.resolve = ["todo.example": "127.0.0.1:9"]
        config.timeout = 5
        let links = AppLinks(registry: tree.registry(), environment: env, config: { [config] in config })
        let verifier = AppLinkVerifier(links: links)
        #expect(try links.linkNotHeld(links.resolve(SchemeURL("https://todo.example/u/1"))) == ["todo.example"])
        #expect(await Self.eventually { links.record("todo.example") != nil }, "the host was never fetched")
        #expect(verifier.fetchCount == 1)
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
