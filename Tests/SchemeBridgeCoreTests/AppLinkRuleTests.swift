import Foundation
import Testing
@testable import SchemeBridgeCore

/// The rules of verified app links (issue 41) without the network: entry keys, hosts, paths,
/// assetlinks.json, the states and the cache.
@Suite struct AppLinkRuleTests {
    @Test func hostsAreNormalisedIDNALowerCaseWithoutTrailingDot() {
        #expect(AppLinkHost.normalized("Example.COM.") == "example.com")
        #expect(AppLinkHost.normalized("Bücher.Example") == "xn--bcher-kva.example")
        #expect(AppLinkHost.normalized("xn--bcher-kva.example") == "xn--bcher-kva.example")
        #expect(AppLinkHost.normalized("BÜCHER.example.") == "xn--bcher-kva.example")
        for bad in ["", ".", "exa mple.com", "a..b", "-a.com", "a-.com", "user@host", "host:443", "ho/st", "[::1]", String(repeating: "a", count: 64) + ".com"] {
            #expect(AppLinkHost.normalized(bad) == nil, "\(bad)")
        }
    }

    @Test func wildcardsCoverHostsBelowNotTheHostItself() {
        let w = AppLinkHostPattern("*.Example.org")!
        #expect(w.isWildcard && w.host == "example.org" && w.verificationHost == "example.org")
        #expect(w.matches("a.example.org") && w.matches("a.b.example.org"))
        #expect(!w.matches("example.org") && !w.matches("badexample.org"))
        #expect(AppLinkHostPattern("*.com") == nil, "a wildcard over a whole top-level domain")
        #expect(AppLinkHostPattern("a.*.org") == nil)
    }

    @Test func pathRulesFirstMatchWinsExclusionsAndNoneMeansAll() {
        let d = AppLinkDeclaration(hosts: "example.com;*.example.org;bad host;", paths: "/u/*;!/help/*;/help/public;notapath;")
        #expect(d.hosts.map(\.description) == ["example.com", "*.example.org"])
        #expect(d.skipped == ["bad host", "notapath"])
        #expect(d.admits(path: "/u/42"))
        #expect(d.admits(path: "/u/a/b/c"), "* matches across /")
        #expect(!d.admits(path: "/help/x"))
        #expect(!d.admits(path: "/help/public"), "the exclusion came first")
        #expect(!d.admits(path: "/other"), "no rule matched and there are inclusions")
        let onlyExclusions = AppLinkDeclaration(hosts: "example.com", paths: "!/help/*")
        #expect(onlyExclusions.admits(path: "/u/1") && !onlyExclusions.admits(path: "/help/1"))
        let all = AppLinkDeclaration(hosts: "example.com", paths: nil)
        #expect(all.admits(path: "/anything") && all.admits(path: ""))
        let mid = AppLinkDeclaration(hosts: "example.com", paths: "/a/*/edit")
        #expect(mid.admits(path: "/a/1/edit") && !mid.admits(path: "/a/1/view"))
    }

    @Test func linksAreHTTPSOnTheDefaultPortWithTheirPath() throws {
        let a = try #require(AppLinkURL(try SchemeURL("https://user@Example.COM./u/42?x=1#f")))
        #expect(a.host == "example.com" && a.path == "/u/42")
        #expect(AppLinkURL(try SchemeURL("https://example.com"))?.path == "/")
        #expect(AppLinkURL(try SchemeURL("https://example.com:443/x"))?.host == "example.com")
        #expect(AppLinkURL(try SchemeURL("https://example.com:8443/x")) == nil)
        #expect(AppLinkURL(try SchemeURL("http://example.com/x")) == nil)
        #expect(AppLinkURL(try SchemeURL("https://b%C3%BCcher.example/x"))?.host == "xn--bcher-kva.example")
    }

    @Test func assetLinksNameAppsWithTheRelationAndNamespace() throws {
        let file = """
        [{"relation": ["delegate_permission/common.handle_all_urls"],
          "target": {"namespace": "android_app", "package_name": "com.example", "sha256_cert_fingerprints": ["AA:BB"]}},
         {"relation": ["delegate_permission/common.get_login_creds", "delegate_permission/common.handle_all_urls"],
          "target": {"namespace": "freedesktop_app", "app_id": "org.example.Todo"}},
         {"relation": ["delegate_permission/common.get_login_creds"],
          "target": {"namespace": "freedesktop_app", "app_id": "org.example.Other"}},
         {"relation": ["delegate_permission/common.handle_all_urls"],
          "target": {"namespace": "freedesktop_app", "app_id": "org.example.Esc\\u00e9"}},
         {"relation": ["delegate_permission/common.handle_all_urls"],
          "target": {"namespace": "freedesktop_app", "app_id": "bad.desktop"}}]
        """
        #expect(try AssetLinks.endorsedApps(Array(file.utf8)) == ["org.example.Todo", "org.example.Escé"])
        for bad in ["{}", "[1]", "[", "[{\"a\":1}] x", String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "[\"\u{1}\"]"] {
            #expect(throws: AssetLinks.Malformed.self, "\(bad.prefix(20))") { try AssetLinks.endorsedApps(Array(bad.utf8)) }
        }
        #expect(throws: AssetLinks.Malformed.self) { try AssetLinks.endorsedApps([UInt8](repeating: 0x20, count: 128 * 1024 + 1)) }
        #expect(try AssetLinks.endorsedApps(Array("[]".utf8)).isEmpty)
    }

    @Test func lifetimesAndBackOff() {
        #expect(AppLinkRecord.maxAge(cacheControl: "public, max-age=3600") == 3600)
        #expect(AppLinkRecord.maxAge(cacheControl: "no-store") == 0)
        #expect(AppLinkRecord.maxAge(cacheControl: nil) == nil)
        #expect(AppLinkRecord.lifetime(maxAge: 0) == 300)
        #expect(AppLinkRecord.lifetime(maxAge: nil) == 86_400)
        #expect(AppLinkRecord.lifetime(maxAge: 100_000_000) == 7 * 86_400)
        #expect(AppLinkRecord.retryDelay(failures: 1) == 60 && AppLinkRecord.retryDelay(failures: 3) == 240)
        #expect(AppLinkRecord.retryDelay(failures: 40) == 6 * 3600)
    }

    @Test func configReadsCAFileResolveAndTimeout() throws {
        var warnings: [String] = []
        let c = try PolicyConfig.parse("[AppLinks]\nCAFile=/etc/ca.pem\nResolve=Example.com=127.0.0.1:8443;b.example=[::1]:443;bad;c.example=1.2.3.4:0;\nTimeout=3\nOther=1\n",
                                       path: "config", warnings: &warnings)
        #expect(c.appLinks.caFile == "/etc/ca.pem" && c.appLinks.timeout == 3)
        #expect(c.appLinks.resolve == ["example.com": "127.0.0.1:8443", "b.example": "[::1]:443"])
        #expect(warnings.count == 3, "\(warnings)")
    }

    /// The states over a real registry: verified only for a trusted entry named by the host's
    /// record; selected by the user's choice; none otherwise. The test runs as root, so the
    /// "user's" directory is given to another uid.
    @Test func statesFollowTrustRecordsAndChoices() throws {
        let t = XDGTree(dataDirCount: 2)
        let claim = "X-SchemeBridge-AppLinks=todo.example;*.todo.example;\nX-SchemeBridge-AppLinks-Paths=!/u/help/*;/u/*;\n"
        t.entry(1, "org.example.Grabber.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
        chown(t.apps(1), 65534, 65534)
        chown(t.apps(1) + "/org.example.Grabber.desktop", 65534, 65534)
        t.entry(2, "org.example.Todo.desktop", extra: claim)
        t.entry(0, "org.example.Mine.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
        let registry = t.registry()
        var env = t.environment
        env["XDG_CACHE_HOME"] = t.root + "/cache"
        let clock = Clock()
        let links = AppLinks(registry: registry, environment: env, config: { AppLinkConfig() }, now: { clock.value })
        #expect(registry.appLinkEntries().map { "\($0.id):\($0.trusted)" } == ["org.example.Grabber.desktop:false", "org.example.Mine.desktop:false", "org.example.Todo.desktop:true"])
        #expect(links.hostsToVerify() == ["todo.example"], "only trusted entries' hosts are fetched in the background")
        #expect(links.resolve(try SchemeURL("https://todo.example/u/1")).state == .none)
        #expect(links.resolve(try SchemeURL("https://todo.example/u/1")).reason == "not verified yet")

        var record = AppLinkRecord(host: "todo.example", checked: 1000, expires: 5000, apps: ["org.example.Todo", "org.example.Grabber", "org.example.Mine"],
                                   failure: nil, source: "https://todo.example/.well-known/assetlinks.json", address: "127.0.0.1:443", status: 200)
        links.store(&record)
        let v = links.resolve(try SchemeURL("https://todo.example/u/1"))
        #expect(v.app == "org.example.Todo.desktop" && v.state == .verified && v.record?.address == "127.0.0.1:443")
        #expect(v.claimants == ["org.example.Grabber.desktop", "org.example.Mine.desktop", "org.example.Todo.desktop"])
        #expect(links.resolve(try SchemeURL("https://a.todo.example/u/1")).state == .verified, "the wildcard verifies at its host")
        let excluded = links.resolve(try SchemeURL("https://todo.example/u/help/x"))
        #expect(excluded.state == .none, "the user-writable entries are named but never verified")
        #expect(excluded.reason.contains("never verified"))

        // The user's choice: an untrusted app the user picks is `selected`.
        try links.select("org.example.Grabber.desktop", for: "TODO.example.")
        #expect(links.resolve(try SchemeURL("https://todo.example/u/help/x")).app == "org.example.Grabber.desktop")
        #expect(links.resolve(try SchemeURL("https://todo.example/u/help/x")).state == .selected)
        #expect(throws: OpenFailure.self) { try links.select("org.example.Nothing.desktop", for: "todo.example") }
        #expect(throws: OpenFailure.self) { try links.select("org.example.Grabber.desktop", for: "other.example") }
        try links.select(nil, for: "todo.example")
        #expect(links.resolve(try SchemeURL("https://todo.example/u/1")).state == .verified)

        // Cached on disk: a new instance reads it; expired records are due.
        let again = AppLinks(registry: registry, environment: env, config: { AppLinkConfig() }, now: { clock.value })
        #expect(again.record("todo.example") == record)
        clock.value = 4999
        #expect(again.due(["todo.example", "new.example"]) == ["new.example"])
        clock.value = 5000
        #expect(again.due(["todo.example"]) == ["todo.example"])
    }

    @Test func anEntryMaskingATrustedOneIsNeverVerified() throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
        t.entry(0, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=todo.example;\n")
        var env = t.environment
        env["XDG_CACHE_HOME"] = t.root + "/cache"
        let links = AppLinks(registry: t.registry(), environment: env, config: { AppLinkConfig() }, now: { 1 })
        var record = AppLinkRecord(host: "todo.example", checked: 1, expires: 5000, apps: ["org.example.Todo"], failure: nil, source: "s", address: "", status: 200)
        links.store(&record)
        #expect(links.resolve(try SchemeURL("https://todo.example/")).state == .none,
                "the user's copy of the id in ~/.local/share/applications masks the system one")
    }
}

private final class Clock: @unchecked Sendable {
    var value: Int64 = 1000
}
