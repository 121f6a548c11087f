import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 41: verification in the background. An entry that declares app links and no scheme,
/// installed while the service runs, is verified with nothing else asking; an open of its link
/// while that fetch is under way goes to the browser at once. The tests watch with `AppLinks`
/// (`links list`), which never asks for a fetch.
@Suite(.serialized) struct AppLinkBackgroundTests {
    static let host = "later.applinks.test"

    /// The state `links list` gives the (app, host) row, or nil when there is no such row.
    static func listedState(_ f: ServiceFixture, _ app: String) async throws -> String? {
        let listed = try await CLITests.cli(f, "links", "list", "--json")
        let prefix = #""app":"\#(app)","pattern":"\#(host)","host":"\#(host)","state":""#
        guard let r = listed.stdout.range(of: prefix) else { return nil }
        return String(listed.stdout[r.upperBound...].prefix { $0 != "\"" })
    }

    @Test func anOpenOfAClaimedLinkWhileItsHostIsFetchedGoesToTheBrowserWithoutWaiting() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        try f.entry("browser.desktop", "Name=Browser\nExec=\(try f.recorder("browser")) %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;", system: true)
        try server.serve(Self.host, apps: ["org.example.Later"])
        try server.hold(Self.host)
        try f.writeConfig(server.config([Self.host], timeout: 60))
        #expect(try await Self.listedState(f, "org.example.Later.desktop") == nil)

        // The app is installed (a system entry, trusted): its host's fetch starts, and is held.
        try f.entry("org.example.Later.desktop", "Name=Later\nExec=\(try f.recorder("later")) %u\nX-SchemeBridge-AppLinks=\(Self.host);", system: true)
        #expect(await Tools.eventually { (try? await Self.listedState(f, "org.example.Later.desktop")) == "none" }, "the service never saw the entry")

        // The first open: nothing verified yet, so the browser, without waiting for the fetch.
        let url = "https://\(Self.host)/item/1"
        let first = try await f.gdbus("OpenURL", url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await f.recordedArgv("browser") == [url])
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("later.argv").path))

        // The fetch answers; from then on the link is the app's.
        server.release()
        #expect(await Tools.eventually { (try? await Self.listedState(f, "org.example.Later.desktop")) == "verified" },
                "never verified: \(f.serviceLog)")
        let resolved = try await f.gdbus("ResolveLink", url)
        #expect(resolved.stdout.contains("'app': <'org.example.Later.desktop'>") && resolved.stdout.contains("'state': <'verified'>"), "\(resolved.stdout)")
        let second = try await f.gdbus("OpenURL", "https://\(Self.host)/item/2")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(await f.recordedArgv("later") == ["https://\(Self.host)/item/2"])
        // Logged once the host is queued (AppLinkVerifier.refresh): its fetch may be done first.
        #expect(await Tools.eventually { f.serviceLog.contains("verifying app links of \(Self.host) (an entry changed)") }, "\(f.serviceLog)")
    }

    /// An entry that declares app links and no scheme, installed while the service runs, is
    /// verified with nothing else asking (no open, no `ResolveLink`: both would queue the host
    /// themselves), and removing it withdraws the link.
    @Test func anEntryDeclaringOnlyAppLinksIsVerifiedWhenItAppearsAndWithdrawnWhenItGoes() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        try server.serve(Self.host, apps: ["org.example.Later"])
        try f.writeConfig(server.config([Self.host]))
        #expect(try await Self.listedState(f, "org.example.Later.desktop") == nil)

        try f.entry("org.example.Later.desktop", "Name=Later\nExec=\(try f.recorder("later")) %u\nX-SchemeBridge-AppLinks=\(Self.host);", system: true)
        #expect(await Tools.eventually { (try? await Self.listedState(f, "org.example.Later.desktop")) == "verified" },
                "the new entry's host was not verified in the background: \(f.serviceLog)")
        let url = "https://\(Self.host)/item/1"
        let resolved = try await f.gdbus("ResolveLink", url)
        #expect(resolved.stdout.contains("'app': <'org.example.Later.desktop'>") && resolved.stdout.contains("'state': <'verified'>"), "\(resolved.stdout)")
        // Logged once the host is queued (AppLinkVerifier.refresh): its fetch may be done first.
        #expect(await Tools.eventually { f.serviceLog.contains("verifying app links of \(Self.host) (an entry changed)") }, "\(f.serviceLog)")

        try FileManager.default.removeItem(at: f.systemData.appendingPathComponent("applications/org.example.Later.desktop"))
        #expect(await Tools.eventually { (try? await Self.listedState(f, "org.example.Later.desktop")) == nil }, "the entry's row stayed")
        let after = try await f.gdbus("ResolveLink", url)
        #expect(after.stdout.contains("'app': <''>") && after.stdout.contains("'state': <'none'>"), "\(after.stdout)")
    }
}
