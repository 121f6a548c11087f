import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 41, item 5's last test: a Flatpak app as the link's app. The app org.test.Links
/// (`Clients/Flatpak/make-test-flatpaks.sh`) exports an entry claiming `fpk.applinks.test`, whose
/// `assetlinks.json` (the local HTTPS server of ``AppLinkServiceTests/Server``) names it. Flatpak
/// exports the entry as a symlink into the app's deployed files, with its `Exec` rewritten to
/// `flatpak run … org.test.Links @@u %u @@`.
///
/// Which installation decides trust (docs/CONTRACT.md, "States"): a system installation
/// (`FLATPAK_SYSTEM_DIR`, root's, outside `$HOME`: `/var/lib/flatpak` on a real system) is written
/// by root alone, so its export is `verified`; a per-user installation (`$XDG_DATA_HOME/flatpak`,
/// `~/.local/share/flatpak`) is written by the user's programs, so its export is never `verified`
/// — the user may still choose it (`selected`).
@Suite(.serialized) struct FlatpakAppLinkTests {
    static let host = "fpk.applinks.test"
    static let appID = "org.test.Links"
    static let desktopID = appID + ".desktop"

    /// `ResolveLink(url)` through gdbus.
    static func resolve(_ f: ServiceFixture, _ url: String) async throws -> String {
        let r = try await f.gdbus("ResolveLink", url)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    /// What org.test.Links received inside its sandbox: its argv, and its `/.flatpak-info`.
    static func received(_ w: FlatpakFixture) async -> (argv: [String]?, info: String?) {
        guard let text = await w.appRecord(appID, "argv") else { return (nil, nil) }
        let argv = text.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        return (argv, await w.appRecord(appID, "flatpak-info"))
    }

    @Test func aSystemInstallationsAppNamedByTheHostIsVerifiedAndGetsTheLinkInItsSandbox() async throws {
        let installation = try await FlatpakInstallation.shared()
        // The system installation: root's, 0755, outside the fixture's $HOME and data home.
        let system = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-fpk-system-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: system) }
        var env = installation.environment
        env["FLATPAK_SYSTEM_DIR"] = system.path
        env["HOME"] = installation.directory.appendingPathComponent("home").path
        for step in [["remote-add", "--no-gpg-verify", "test-repo", "file://" + installation.directory.appendingPathComponent("repo").path],
                     ["install", "-y", "--noninteractive", "test-repo", "org.test.Platform", Self.appID]] {
            let r = try await Tools.run([try Tools.path(of: "flatpak"), "--system"] + step, environment: env)
            #expect(r.status == 0, "flatpak --system \(step[0]): \(r.stdout)\(r.stderr)")
        }
        let exported = system.appendingPathComponent("exports/share/applications/\(Self.desktopID)").path
        let entry = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(entry.contains("X-SchemeBridge-AppLinks=\(Self.host);") && entry.contains("X-Flatpak=\(Self.appID)"), "\(entry)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: exported)) != nil, "flatpak exports a symlink")

        let w = try await FlatpakFixture(adjust: { e in
            e["FLATPAK_SYSTEM_DIR"] = system.path
            e["XDG_DATA_DIRS"] = system.appendingPathComponent("exports/share").path
        })
        defer { w.stop() }
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        try server.serve(Self.host, apps: [Self.appID])
        try w.service.writeConfig(server.config([Self.host]))

        let verified = try await CLITests.cli(w.service, "links", "verify", Self.host, "--json")
        #expect(verified.stdout.contains(#""apps":["\#(Self.appID)"]"#), "\(verified.stdout)\(verified.stderr)")
        let url = "https://\(Self.host)/u/42?from=sandbox"
        let answer = try await Self.resolve(w.service, url)
        #expect(answer.contains("'app': <'\(Self.desktopID)'>") && answer.contains("'state': <'verified'>"), "\(answer)")
        let listed = try await CLITests.cli(w.service, "links", "list", "--json")
        #expect(listed.stdout.contains(#""app":"\#(Self.desktopID)","pattern":"\#(Self.host)","host":"\#(Self.host)","state":"verified","trusted":true"#),
                "\(listed.stdout)")

        // Opening the link starts the app through flatpak: inside its sandbox it got the URL alone.
        let opened = try await AppLinkServiceTests.openAppLink(w.service, url)
        #expect(opened.status == 0, "\(opened.stderr)\n\(w.service.serviceLog)")
        let (argv, info) = await Self.received(w)
        #expect(argv == [url], "\(String(describing: argv))")
        #expect(info?.contains("name=\(Self.appID)\n") == true, "the app ran in its sandbox: \(info ?? "no /.flatpak-info")")
    }

    @Test func aUserInstallationsAppIsNeverVerifiedButTheUserMayChooseIt() async throws {
        // Flatpak's own default for a user installation: $XDG_DATA_HOME/flatpak (~/.local/share/flatpak).
        let w = try await FlatpakFixture(adjust: { $0["FLATPAK_USER_DIR"] = nil }, dataDirsInHome: ["data/flatpak/exports/share"])
        defer { w.stop() }
        let installation = try await FlatpakInstallation.shared()
        for step in [["remote-add", "--no-gpg-verify", "test-repo", "file://" + installation.directory.appendingPathComponent("repo").path],
                     ["install", "-y", "--noninteractive", "test-repo", "org.test.Platform", Self.appID]] {
            let r = try await w.flatpak(["--user"] + step)
            #expect(r.status == 0, "flatpak --user \(step[0]): \(r.stdout)\(r.stderr)")
        }
        let exported = w.service.dataHome.appendingPathComponent("flatpak/exports/share/applications/\(Self.desktopID)").path
        #expect(FileManager.default.fileExists(atPath: exported), "flatpak exported the entry into the user installation")
        let server = try await AppLinkServiceTests.Server()
        defer { server.stop() }
        try server.serve(Self.host, apps: [Self.appID])
        try w.service.writeConfig(server.config([Self.host]))

        // The host names the app, and its file is fetched on request; still not verified.
        let verified = try await CLITests.cli(w.service, "links", "verify", Self.host, "--json")
        #expect(verified.stdout.contains(#""apps":["\#(Self.appID)"]"#), "\(verified.stdout)\(verified.stderr)")
        let url = "https://\(Self.host)/u/7"
        let answer = try await Self.resolve(w.service, url)
        #expect(answer.contains("'app': <''>") && answer.contains("'state': <'none'>") && answer.contains("never verified"), "\(answer)")
        let listed = try await CLITests.cli(w.service, "links", "list", "--json")
        #expect(listed.stdout.contains(#""app":"\#(Self.desktopID)","pattern":"\#(Self.host)","host":"\#(Self.host)","state":"none","trusted":false"#),
                "\(listed.stdout)")
        let refused = try await AppLinkServiceTests.openAppLink(w.service, url)
        #expect(refused.status != 0 && refused.stderr.contains("Error.NotAppLink"), "\(refused.stderr)")

        // The user's choice: `selected`, and the link opens in the sandboxed app.
        let set = try await CLITests.cli(w.service, "links", "set", Self.host, Self.appID)
        #expect(set.status == 0, "\(set.stderr)")
        let chosen = try await Self.resolve(w.service, url)
        #expect(chosen.contains("'app': <'\(Self.desktopID)'>") && chosen.contains("'state': <'selected'>"), "\(chosen)")
        let opened = try await AppLinkServiceTests.openAppLink(w.service, url)
        #expect(opened.status == 0, "\(opened.stderr)\n\(w.service.serviceLog)")
        let (argv, info) = await Self.received(w)
        #expect(argv == [url], "\(String(describing: argv))")
        #expect(info?.contains("name=\(Self.appID)\n") == true, "the app ran in its sandbox: \(info ?? "no /.flatpak-info")")
    }
}
