import Foundation
import Testing
import DBusTestSupport

/// "Save to…" end to end on a private Xvfb: zenity's save dialog comes up with the share's
/// title, real key presses put a path in it (through the clipboard, as `PickFilesScreenTests`
/// does: keys typed one by one were lost beside CPU hogs; each key once, when the dialog read
/// through AT-SPI shows the field ready for it), and the shared file's bytes are at that path; the
/// Response names it.
@Suite struct ShareSaveScreenTests {
    @Test func saveToWritesTheItemWhereTheUserChose() async throws {
        // GTK's file chooser needs its GSettings schemas (the fixture's XDG_DATA_DIRS has none).
        let s = try DefaultChooserTests.Screen(environment: ["GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas"])
        defer { s.stop() }
        let folder = try Tools.typeableFolder("sbsave")
        defer { try? FileManager.default.removeItem(at: folder) }
        let chosen = folder.appendingPathComponent("kept copy.bin")
        // Every byte value, and a NUL-heavy tail: nothing may be lost or re-encoded on the way.
        let bytes = Data((0...255).map { UInt8($0) } + [UInt8](repeating: 0, count: 5000) + Array("end ✓\n".utf8))
        let original = s.f.root.appendingPathComponent("report.bin")
        try bytes.write(to: original)
        // Beside CPU hogs the dialog may take minutes to take all the keys.
        try s.f.writeConfig("[Chooser]\nTimeout=3600\n")
        // The dialog read as a screen reader reads it: its bus up before zenity starts.
        let a11y = try await AccessibilityBus(sessionBus: s.f.bus.address, display: s.x.display)
        defer { a11y.stop() }
        async let shared = ShareTests.share(s.f, #"[{"file": "\#(original.path)"}]"#, #"{"target": "builtin:save", "title": "Keep the report"}"#)
        let w = try #require(try await s.dialog("Keep the report"), "no save dialog came up\n\(s.f.serviceLog)")
        // The name field has the focus, holding the item's name: ctrl+A selects it for the path.
        try await a11y.choose(chosen.path, in: w, of: "zenity", titled: "Keep the report", on: s.x, selecting: "ctrl+a", folder: folder)
        let out = try await shared
        let response = try #require(ShareTests.responses(out).first, "\(out)\n\(s.f.serviceLog)")
        #expect(response["code"] as? Int == 0, "\(out)\n\(s.f.serviceLog)")
        let results = response["results"] as? [String: String] ?? [:]
        #expect(results["target"] == "builtin:save" && results["path"] == chosen.path, "\(results)")
        #expect(try Data(contentsOf: chosen) == bytes)
        // The user's original is untouched.
        #expect(try Data(contentsOf: original) == bytes)
    }
}
