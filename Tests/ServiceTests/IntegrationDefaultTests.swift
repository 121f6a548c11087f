import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 27, item 4: setting a default while `integrate` routes the scheme keeps it routed
/// through us — ours first, then the new default — and `integrate disable` then leaves the new
/// default (not the one before it, not our line).
@Suite struct IntegrationDefaultTests {
    @Test func settingADefaultKeepsTheSchemeRoutedAndDisableLeavesTheNewDefault() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let ours = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/\(Contract.ownDesktopID)"), encoding: .utf8)
        try ours.write(to: f.applications.appendingPathComponent(Contract.ownDesktopID), atomically: true, encoding: .utf8)
        try f.entry("notes-a.desktop", "Name=Notes A\nExec=/bin/true %u\nMimeType=x-scheme-handler/notes;")
        try f.entry("notes-b.desktop", "Name=Notes B\nExec=/bin/true %u\nMimeType=x-scheme-handler/notes;")
        let list = f.configHome.appendingPathComponent("mimeapps.list")
        func text() -> String { (try? String(contentsOf: list, encoding: .utf8)) ?? "" }

        #expect(try await CLITests.cli(f, "integrate", "enable").status == 0)
        #expect(text().contains("\nx-scheme-handler/notes=\(Contract.ownDesktopID)\n"), "\(text())")

        let set = try await CLITests.cli(f, "default", "notes", "notes-b.desktop")
        #expect(set.status == 0, "\(set.stderr)")
        // The desktop's tools still reach us first; our own resolution uses the new default.
        #expect(text().contains("\nx-scheme-handler/notes=\(Contract.ownDesktopID);notes-b.desktop;\n"), "\(text())")
        #expect(await Tools.eventually { (try? await f.dbusSend("DefaultHandler", "string:notes"))?.stdout.contains("\"notes-b.desktop\"") == true })
        let status = try await CLITests.cli(f, "integrate", "status", "--json")
        #expect(status.stdout.contains("\"schemes\":[\"notes\"],\"changed\":[]"), "\(status.stdout)")

        // Disabled: the user's new choice stays, our entry goes.
        #expect(try await CLITests.cli(f, "integrate", "disable").status == 0)
        #expect(text().contains("\nx-scheme-handler/notes=notes-b.desktop\n") && !text().contains(Contract.ownDesktopID), "\(text())")
    }
}
