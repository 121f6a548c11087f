import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 41: an open of a link whose app claims the host but does not hold it yet (never
/// verified) goes to the browser at once and queues the host's verification in the background;
/// with nothing else asking, the link is later held. The entry appears after the service started
/// and declares no scheme, so no other trigger (start, a scheme's handlers changing) fetches it;
/// the test watches with `AppLinks` (`links list`), which never asks for a fetch.
@Suite(.serialized) struct AppLinkBackgroundTests {
    static let host = "later.applinks.test"

    /// The state `links list` gives the (app, host) row, or nil when there is no such row.
    static func listedState(_ f: ServiceFixture, _ app: String) async throws -> String? {
        let listed = try await CLITests.cli(f, "links", "list", "--json")
        let prefix = #""app":"\#(app)","pattern":"\#(host)","host":"\#(host)","state":""#
        guard let r = listed.stdout.range(of: prefix) else { return nil }
        return String(listed.stdout[r.upperBound...].prefix { $0 != "\"" })
    }

    @Test func anOpenOfAClaimedLinkNotVerifiedYetGoesToTheBrowserAndVerifiesInTheBackground() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        try f.entry("browser.desktop", "Name=Browser\nExec=\(try f.recorder("browser")) %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;", system: true)
        try server.serve(Self.host, apps: ["org.example.Later"])
        try f.writeConfig(server.config([Self.host]))
        // The service runs; no app claims the host yet.
        #expect(try await Self.listedState(f, "org.example.Later.desktop") == nil)

        // The app is installed (a system entry, trusted) and the service sees it.
        try f.entry("org.example.Later.desktop", "Name=Later\nExec=\(try f.recorder("later")) %u\nX-SchemeBridge-AppLinks=\(Self.host);", system: true)
        #expect(await Tools.eventually { (try? await Self.listedState(f, "org.example.Later.desktop")) == "none" }, "the service never saw the entry")

        // The first open: nothing verified, so the browser.
        let url = "https://\(Self.host)/item/1"
        let first = try await f.gdbus("OpenURL", url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await f.recordedArgv("browser") == [url])
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("later.argv").path))

        // Verified without another trigger; from then on the link is the app's.
        #expect(await Tools.eventually { (try? await Self.listedState(f, "org.example.Later.desktop")) == "verified" },
                "the open did not queue a verification: \(f.serviceLog)")
        let resolved = try await f.gdbus("ResolveLink", url)
        #expect(resolved.stdout.contains("'app': <'org.example.Later.desktop'>") && resolved.stdout.contains("'state': <'verified'>"), "\(resolved.stdout)")
        let second = try await f.gdbus("OpenURL", "https://\(Self.host)/item/2")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(await f.recordedArgv("later") == ["https://\(Self.host)/item/2"])
        #expect(f.serviceLog.contains("verifying app links of \(Self.host) (a link their apps claim was opened or resolved)"), "\(f.serviceLog)")
    }
}
