import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The sheet's "Files…" on a private Xvfb (issue 25): zenity's file chooser comes up with the
/// caller's title, real key presses (xdotool) type a path and choose it, and the caller gets a
/// read-only copy of that file; and the sheet itself with the shipped chooser.
@Suite struct PickFilesScreenTests {
    @Test func filesReturnsTheFileChosenWithKeyPresses() async throws {
        // GTK's file chooser needs its GSettings schemas (the fixture's XDG_DATA_DIRS has none).
        let s = try DefaultChooserTests.Screen(environment: ["GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas"])
        defer { s.stop() }
        // Typed key by key: a path of lower-case letters, digits, '.' and '/' only (no key needs
        // Shift, which xdotool can lose beside CPU hogs: the fixture's root has capitals and '-').
        let folder = try Tools.typeableFolder("sbpick")
        defer { try? FileManager.default.removeItem(at: folder) }
        let chosen = folder.appendingPathComponent("chosen.png")
        let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 9, count: 2048)
        try Data(bytes).write(to: chosen)
        // Beside CPU hogs the dialog may take minutes to take all the keys: the chooser's
        // timeout (120 s by default) must not close it first.
        try s.f.writeConfig("[Chooser]\nTimeout=3600\n")
        // The dialog read as a screen reader reads it: its bus up before zenity starts.
        let a11y = try await AccessibilityBus(sessionBus: s.f.bus.address, display: s.x.display)
        defer { a11y.stop() }
        async let picked = PickTests.pick(s.f, options: ["provider": "io.github.schemebridge.Files.desktop", "title": "Choose a scan"])
        let w = try #require(try await s.dialog("Choose a scan"), "no file chooser came up\n\(s.f.serviceLog)")
        // ctrl+L opens the location field (selecting what is there) for the path.
        try await a11y.choose(chosen.path, in: w, of: "zenity", titled: "Choose a scan", on: s.x, selecting: "ctrl+l", folder: folder)
        let result = try await picked
        let response = PickTests.response(result)
        #expect(response["code"] as? Int == 0, "\(result)\n\(s.f.serviceLog)")
        #expect(response["names"] as? [String] == ["chosen.png"] && response["types"] as? [String] == ["image/png"], "\(response)")
        #expect(response["provider"] as? String == "io.github.schemebridge.Files.desktop")
        let received = try Data(contentsOf: URL(fileURLWithPath: result["out"] as! String).appendingPathComponent("0.bin"))
        #expect(received == Data(bytes))
        let doc = (response["docs"] as? [[String: Any]])?.first ?? [:]
        #expect(doc["writable"] as? Bool == false && doc["reopenable"] as? Bool == false, "\(doc)")
    }

    /// The sheet with the shipped chooser: zenity's list titled with the caller's title shows
    /// the provider and "Files…"; keys pick the provider, whose answer reaches the caller.
    @Test func theShippedSheetListsTheProviderAndFilesAndAKeyPicks() async throws {
        let s = try DefaultChooserTests.Screen()
        defer { s.stop() }
        let scan = s.f.root.appendingPathComponent("kept.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 4, count: 32)).write(to: scan)
        try PickTests.provider(s.f, ["answer:\(scan.path):image/png:kept.png"])
        async let picked = PickTests.pick(s.f, options: ["title": "Insert a scan"])
        let w = try #require(try await s.dialog("Insert a scan"), "no sheet came up\n\(s.f.serviceLog)")
        // Down to the second row ("Files…") and Up to the first (the Scanner), Return picks it.
        try await s.type(["Down", "Up", "Return"], into: w)
        let result = try await picked
        let response = PickTests.response(result)
        #expect(response["code"] as? Int == 0 && response["provider"] as? String == "scanner.desktop", "\(result)\n\(s.f.serviceLog)")
        #expect(response["names"] as? [String] == ["kept.png"])
    }
}
