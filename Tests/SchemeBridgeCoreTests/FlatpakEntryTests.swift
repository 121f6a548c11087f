import Foundation
import Testing
@testable import SchemeBridgeCore

/// Issue 26: which entries start a Flatpak app (``DesktopEntry/flatpakAppID``), how their
/// `Exec` runs without flatpak's own file forwarding, and what a sandboxed caller may do
/// (``SandboxedCallerRule``).
@Suite struct FlatpakEntryTests {
    static let exported = "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=viewer --file-forwarding org.example.Viewer @@u %U @@"

    func entry(exec: String, extra: String) throws -> DesktopEntry {
        let t = XDGTree()
        t.entry(0, "app.desktop", mimeTypes: ["text/plain"], exec: exec, extra: extra)
        return try #require(t.registry().entry(id: "app.desktop"))
    }

    @Test func anExportedEntryNamesItsApp() throws {
        #expect(try entry(exec: Self.exported, extra: "X-Flatpak=org.example.Viewer").flatpakAppID?.text == "org.example.Viewer")
    }

    /// The key alone names no app: documents are granted to an id only when the entry runs it.
    @Test(arguments: [
        ("/usr/bin/evil %U", "X-Flatpak=org.example.Viewer"),
        ("/usr/bin/flatpak run org.example.Other %U", "X-Flatpak=org.example.Viewer"),
        ("/usr/bin/flatpak info org.example.Viewer %U", "X-Flatpak=org.example.Viewer"),
        (exported, "X-Flatpak=not-an-id"),
        (exported, ""),
    ])
    func otherEntriesNameNoApp(exec: String, extra: String) throws {
        #expect(try entry(exec: exec, extra: extra).flatpakAppID == nil)
    }

    /// The document (already in the portal) is passed as it is: no `--file-forwarding`, no markers.
    @Test func withoutFileForwardingTheArgvIsPlain() throws {
        let e = try entry(exec: Self.exported, extra: "X-Flatpak=org.example.Viewer")
        let url = try SchemeURL("file:///run/user/1000/doc/ab12/note.txt")
        #expect(e.launchCommandsWithoutFileForwarding(for: [url]).map(\.argv) == [[
            "/usr/bin/flatpak", "run", "--branch=stable", "--arch=x86_64", "--command=viewer", "org.example.Viewer", url.string]])
        #expect(e.launchCommands(for: [url]).first?.argv.contains("@@u") == true, "the entry's own command keeps them")
    }

    @Test func aSandboxedCallerLearnsAndChangesLess() {
        let app = Caller(busName: ":1.1", id: "org.example.App", sandboxed: true)
        let host = Caller(busName: ":1.2", id: "org.example.App")
        #expect(!SandboxedCallerRule.mayAdminister(app) && SandboxedCallerRule.mayAdminister(host))
        #expect(!SandboxedCallerRule.mayListTypeHandlers(app) && SandboxedCallerRule.mayListTypeHandlers(host))
        #expect(SandboxedCallerRule.maySeeChoices(of: "org.example.App", by: app))
        #expect(!SandboxedCallerRule.maySeeChoices(of: "org.example.Other", by: app))
        #expect(SandboxedCallerRule.maySeeChoices(of: "org.example.Other", by: host))
    }

    /// `ShareTargets` tells a sandboxed caller of no app and no device: only Copy and Save to….
    @Test func aSandboxedCallerIsToldOfNoShareTargetThatNamesAnAppOrDevice() {
        let targets = [ShareTarget(id: "notes.desktop:share", name: "Send to Notes", icon: "", kind: .app),
                       ShareTarget(id: ShareTargetID.openIn(desktopID: "viewer.desktop").text, name: "Open in Viewer", icon: "", kind: .builtin),
                       ShareTarget(id: ShareTargetID.device("phone_1").text, name: "Send to Phone", icon: "", kind: .device),
                       ShareTarget(id: ShareTargetID.copy.text, name: "Copy", icon: "", kind: .builtin),
                       ShareTarget(id: ShareTargetID.save.text, name: "Save to…", icon: "", kind: .builtin)]
        let app = Caller(busName: ":1.1", id: "org.example.App", sandboxed: true)
        let host = Caller(busName: ":1.2", id: "org.example.App")
        #expect(SandboxedCallerRule.visibleShareTargets(targets, to: app).map(\.id) == [ShareTargetID.copy.text, ShareTargetID.save.text])
        #expect(SandboxedCallerRule.visibleShareTargets(targets, to: host).map(\.id) == targets.map(\.id))
    }
}
