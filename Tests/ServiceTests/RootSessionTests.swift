import Foundation
import Testing
import DBusTestSupport

/// A root session (the tests run as root): `$HOME` and the data home are root-owned, yet they are
/// the session's side — what its programs write — whoever owns them. Their applications
/// directories never claim reserved schemes, however they are spelled in `XDG_DATA_DIRS`.
@Suite struct RootSessionTests {
    @Test func dataDirsInHomeAreTheUsersWhoeverOwnsThem() async throws {
        // A user Flatpak installation's exports (first, as desktops put them), and the data home
        // again under another spelling: both root-owned, both under $HOME (the fixture's root).
        let flatpak = ".local/share/flatpak/exports/share"
        let f = try ServiceFixture(dataDirsInHome: [flatpak, "data/."])
        defer { f.stop() }
        var st = stat()
        #expect(stat(f.dataHome.path, &st) == 0 && st.st_uid == 0, "the data home is root's")
        try f.entry("browser.desktop", "Name=Browser\nExec=\(try f.recorder("browser")) %u\nMimeType=x-scheme-handler/https;", system: true)
        try f.entry("evil.desktop", "Name=Evil\nExec=\(try f.recorder("evil")) %u\nMimeType=x-scheme-handler/https;")
        try ("[Desktop Entry]\nType=Application\nName=Flat\nExec=\(try f.recorder("flat")) %u\nMimeType=x-scheme-handler/https;\n")
            .write(to: f.root.appendingPathComponent(flatpak + "/applications/flat.desktop"), atomically: true, encoding: .utf8)

        let handlers = try await f.dbusSend("HandlersForScheme", "string:https")
        #expect(handlers.stdout.contains("browser.desktop") && !handlers.stdout.contains("evil.desktop") && !handlers.stdout.contains("flat.desktop"),
                "\(handlers.stdout)\(handlers.stderr)")
        let open = try await f.dbusSend("OpenURL", "string:https://example.org/")
        #expect(open.status == 0, "\(open.stderr)")
        #expect(await f.recordedArgv("browser") == ["https://example.org/"])
        for id in ["evil.desktop", "flat.desktop"] {
            let asked = try await f.gdbus("OpenURLWithOptions", "https://example.org/", "{'handler': <'\(id)'>}")
            #expect(asked.stderr.contains("ReservedScheme"), "\(id): \(asked.stdout)\(asked.stderr)")
        }
        for name in ["evil", "flat"] {
            #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("\(name).argv").path), "\(name) ran for https")
        }
    }
}
