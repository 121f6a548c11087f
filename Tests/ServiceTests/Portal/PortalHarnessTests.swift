import Foundation
import Testing
import DBusTestSupport

/// Issue 40's harness proves itself: a real `flatpak run` app with no `--talk-name`
/// (org.test.NoTalk) calls `org.freedesktop.portal.OpenURI.OpenURI` on Debian 12's real
/// xdg-desktop-portal, which asks the real GTK `AppChooser` backend — with the sandboxed app's id —
/// and the GTK chooser dialog comes up on the private X server. Nothing of SchemeBridge is
/// involved yet: this is the stage its own backend will be tested on.
@Suite struct PortalHarnessTests {
    @Test func aSandboxedAppWithNoTalkNameReachesThePortalAndTheGTKChooserIsAsked() async throws {
        let p = try await PortalFixture()
        defer { p.stop() }
        // Two apps for the scheme and no default: the frontend asks the backend (with one
        // candidate, or a default for some schemes, it would not).
        for n in ["Todo", "Todo2"] {
            try p.service.entry("org.example.\(n).desktop", "Name=\(n)\nExec=\(try p.service.recorder(n)) %u\nMimeType=x-scheme-handler/todolist;")
        }
        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.AppChooser")

        let r = try await p.sandboxedPortalCall("org.test.NoTalk", "org.freedesktop.portal.OpenURI", "OpenURI", ["", "todolist://x", "@a{sv} {}"])
        #expect(r.status == 0 && r.stdout.contains("/org/freedesktop/portal/desktop/request/"), "\(r.stdout) \(r.stderr)\n\(p.busLog)")
        guard r.status == 0 else { return }

        var seen = ""
        let asked = await Tools.eventually {
            seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
            return seen.contains("member=ChooseApplication") && seen.contains("string \"org.test.NoTalk\"")
        }
        #expect(asked, "the AppChooser backend was not asked: \(seen)")
        let gtk = try #require(try await p.owner(of: PortalFixture.gtkName), "the GTK backend is not on the bus")
        #expect(seen.contains("destination=\(gtk) "), "ChooseApplication went to someone else than the GTK backend (\(gtk)): \(seen)")
        let dialog = await Tools.eventually { ((try? p.xvfb.topLevelWindows()) ?? []).contains { $0.resName == "xdg-desktop-portal-gtk" && $0.isMapped } }
        #expect(dialog, "the GTK chooser never showed: \((try? p.xvfb.topLevelWindows()) ?? [])")
        // The chooser is waiting for the user: nothing ran yet.
        #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("Todo.argv").path))
        #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("Todo2.argv").path))
    }

    /// The same app's `FileChooser.OpenFile` reaches the GTK `FileChooser` backend (the one
    /// issue 40's chooser hands ordinary browsing to), which shows its file dialog.
    @Test func aSandboxedAppWithNoTalkNameReachesTheGTKFileChooser() async throws {
        let p = try await PortalFixture()
        defer { p.stop() }
        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.FileChooser")
        let r = try await p.sandboxedPortalCall("org.test.NoTalk", "org.freedesktop.portal.FileChooser", "OpenFile", ["", "Pick a note", "@a{sv} {}"])
        #expect(r.status == 0 && r.stdout.contains("/org/freedesktop/portal/desktop/request/"), "\(r.stdout) \(r.stderr)\n\(p.busLog)")
        guard r.status == 0 else { return }
        var seen = ""
        let asked = await Tools.eventually {
            seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
            return seen.contains("member=OpenFile") && seen.contains("string \"org.test.NoTalk\"") && seen.contains("string \"Pick a note\"")
        }
        #expect(asked, "the FileChooser backend was not asked: \(seen)")
        let gtk = try #require(try await p.owner(of: PortalFixture.gtkName), "the GTK backend is not on the bus")
        #expect(seen.contains("destination=\(gtk) "), "OpenFile went to someone else than the GTK backend (\(gtk)): \(seen)")
        let dialog = await Tools.eventually { ((try? p.xvfb.topLevelWindows()) ?? []).contains { $0.resName == "xdg-desktop-portal-gtk" && $0.isMapped } }
        #expect(dialog, "the GTK file chooser never showed: \((try? p.xvfb.topLevelWindows()) ?? [])")
    }
}
