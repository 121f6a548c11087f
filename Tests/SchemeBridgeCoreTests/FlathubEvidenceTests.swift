import Foundation
import Testing
@testable import SchemeBridgeCore

/// Flathub's verified-website data as a second source of evidence (issue 41): a fixture AppStream
/// file in a temp Flatpak installation (`<installation>/appstream/flathub/x86_64/active/appstream.xml`,
/// `active` a symlink as flatpak makes it), its exported entries in `exports/share/applications`.
@Suite struct FlathubEvidenceTests {
    static func component(_ id: String, verified: String = "true", method: String = "website", website: String) -> String {
        """
          <component type="desktop-application">
            <id>\(id)</id>
            <name>App &amp; Co</name>
            <custom>
              <value key="flathub::verification::verified">\(verified)</value>
              <value key="flathub::verification::method">\(method)</value>
              <value key="flathub::verification::website">\(website)</value>
              <value key="flathub::verification::timestamp">1700000000</value>
            </custom>
          </component>
        """
    }

    /// An installation at `root/flatpak` with `entries` (app id → claimed hosts) exported and
    /// `components` in flathub's AppStream data.
    static func world(_ t: XDGTree, entries: [String: String], components: [String]) -> AppLinks {
        let installation = t.root + "/flatpak"
        let exports = installation + "/exports/share/applications"
        t.mkdir(exports)
        for (id, hosts) in entries {
            t.write(exports + "/\(id).desktop", """
                [Desktop Entry]
                Type=Application
                Name=\(id)
                Exec=/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=app --file-forwarding \(id) @@u %U @@
                X-Flatpak=\(id)
                X-SchemeBridge-AppLinks=\(hosts)

                """)
        }
        let commit = installation + "/appstream/flathub/x86_64/0123abcd"
        t.write(commit + "/appstream.xml", "<?xml version=\"1.0\"?>\n<components version=\"0.8\" origin=\"flathub\">\n"
                + components.joined(separator: "\n") + "\n</components>\n")
        try? FileManager.default.createSymbolicLink(atPath: installation + "/appstream/flathub/x86_64/active", withDestinationPath: "0123abcd")
        var env = t.environment
        env["XDG_DATA_DIRS"] = installation + "/exports/share:" + (env["XDG_DATA_DIRS"] ?? "")
        env["XDG_CACHE_HOME"] = t.root + "/cache"
        let links = AppLinks(registry: Registry(environment: env, watch: false), environment: env, config: { AppLinkConfig() }, now: { 1000 })
        links.readFlathubEvidence()
        return links
    }

    @Test func aWebsiteVerifiedFlatpakAppHoldsTheHostItsIdNames() throws {
        let t = XDGTree(dataDirCount: 1)
        let links = Self.world(t, entries: [
            "org.example.Todo": "example.org;",             // verified by website, the id names the host
            "org.example.Notes": "notes.example.org;",      // verified for example.org, but claims another host
            "com.other.Mail": "example.org;",               // claims the host its id does not name
            "net.example.Chat": "example.net;",             // Flathub: verified by login, not by website
            "org.example.Wiki": "wiki.example;",            // (id names example.org) not in the data
        ], components: [
            Self.component("org.example.Todo", website: "Example.ORG."),
            Self.component("org.example.Notes", website: "example.org"),
            Self.component("com.other.Mail", website: "example.org"),
            Self.component("net.example.Chat", method: "login_provider", website: "example.net"),
        ])
        let todo = links.resolve(try SchemeURL("https://example.org/u/1"))
        #expect(todo.app == "org.example.Todo.desktop" && todo.state == .verified, "\(todo)")
        #expect(todo.record?.source.hasPrefix("flathub-appstream:flathub:" + t.root + "/flatpak/appstream/flathub/x86_64/active/appstream.xml") == true,
                "\(todo.record?.source ?? "")")
        #expect(todo.record?.checked == 1_700_000_000 && todo.reason.contains("Flathub"), "\(todo)")
        #expect(todo.claimants == ["com.other.Mail.desktop", "org.example.Todo.desktop"])
        #expect(links.resolve(try SchemeURL("https://notes.example.org/")).state == .none, "verified for another host")
        #expect(links.resolve(try SchemeURL("https://example.net/")).state == .none, "verified by login only")
        #expect(links.resolve(try SchemeURL("https://wiki.example/")).state == .none, "not in the data")
        #expect(!links.hostsToVerify().isEmpty)
    }

    @Test func unverifiedOrUserWritableDataProvesNothing() throws {
        let t = XDGTree(dataDirCount: 1)
        let links = Self.world(t, entries: ["org.example.Todo": "example.org;"],
                               components: [Self.component("org.example.Todo", verified: "false", website: "example.org")])
        #expect(links.resolve(try SchemeURL("https://example.org/")).state == .none)

        // The same data in an installation the user's programs can write (another uid owns it).
        let u = XDGTree(dataDirCount: 1)
        let user = Self.world(u, entries: ["org.example.Todo": "example.org;"], components: [Self.component("org.example.Todo", website: "example.org")])
        #expect(user.resolve(try SchemeURL("https://example.org/")).state == .verified, "root-owned: trusted")
        for path in [u.root + "/flatpak", u.root + "/flatpak/exports/share/applications", u.root + "/flatpak/appstream/flathub/x86_64/0123abcd/appstream.xml",
                     u.root + "/flatpak/exports/share/applications/org.example.Todo.desktop"] {
            chown(path, 65534, 65534)
        }
        var env = u.environment
        env["XDG_DATA_DIRS"] = u.root + "/flatpak/exports/share:" + (env["XDG_DATA_DIRS"] ?? "")
        env["XDG_CACHE_HOME"] = u.root + "/cache2"
        let again = AppLinks(registry: Registry(environment: env, watch: false), environment: env, config: { AppLinkConfig() }, now: { 1000 })
        again.readFlathubEvidence()
        #expect(again.resolve(try SchemeURL("https://example.org/")).state == .none, "a user-writable installation proves nothing")
    }

    @Test func theParserReadsOnlyWhatItShould() {
        let xml = Array(("<components>" + Self.component("org.example.A", website: "a.example.org")
                         + "<component><id>org.example.B</id><custom><value key='flathub::verification::verified'>true</value>"
                         + "<value key='flathub::verification::method'>website</value><value key='flathub::verification::website'>b.example.org</value></custom></component>"
                         + Self.component("not an id", website: "c.example.org") + Self.component("org.example.D", website: "not a host!") + "</components>").utf8)
        let found = FlathubVerification.parse(xml, remote: "flathub", file: "/f")
        #expect(found.keys.sorted() == ["org.example.A", "org.example.B"])
        #expect(found["org.example.A"]?.website == "a.example.org" && found["org.example.A"]?.timestamp == 1_700_000_000)
        #expect(AppID("io.github.user.App").flatMap(FlathubVerification.host(ofAppID:)) == "user.github.io")
        #expect(AppID("org.Example").flatMap(FlathubVerification.host(ofAppID:)) == nil)
    }
}
