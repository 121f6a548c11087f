import Foundation
import Testing
import DBusTestSupport

/// "Save to…" end to end on a private Xvfb: zenity's save dialog comes up with the share's
/// title, real key presses put a path in it (through the clipboard, as `PickFilesScreenTests`
/// does: keys typed one by one were lost beside CPU hogs), and the shared file's bytes are at
/// that path; the Response names it.
@Suite struct ShareSaveScreenTests {
    @Test func saveToWritesTheItemWhereTheUserChose() async throws {
        // GTK's file chooser needs its GSettings schemas (the fixture's XDG_DATA_DIRS has none).
        let s = try DefaultChooserTests.Screen(environment: ["GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas"])
        defer { s.stop() }
        let folder = URL(fileURLWithPath: "/tmp/sbsave" + UUID().uuidString.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(12))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let chosen = folder.appendingPathComponent("kept copy.bin")
        // Every byte value, and a NUL-heavy tail: nothing may be lost or re-encoded on the way.
        let bytes = Data((0...255).map { UInt8($0) } + [UInt8](repeating: 0, count: 5000) + Array("end ✓\n".utf8))
        let original = s.f.root.appendingPathComponent("report.bin")
        try bytes.write(to: original)
        // Beside CPU hogs the dialog may take minutes to take all the keys.
        try s.f.writeConfig("[Chooser]\nTimeout=3600\n")
        async let shared = ShareTests.share(s.f, #"[{"file": "\#(original.path)"}]"#, #"{"target": "builtin:save", "title": "Keep the report"}"#)
        let w = try #require(try await s.dialog("Keep the report"), "no save dialog came up\n\(s.f.serviceLog)")
        // The name field has the focus, holding the item's name: ctrl+A selects it for the path.
        try await s.enter(chosen.path, into: w, selecting: "ctrl+a", folder: folder)
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

extension DefaultChooserTests.Screen {
    /// Puts `path` into GTK's file chooser `w` and chooses it: through the clipboard (xclip
    /// holds it until this returns; keys typed one by one were lost beside CPU hogs), `select`
    /// (ctrl+L: the location field; ctrl+A: the name field's text), ctrl+V, Return. Keys sent
    /// while GTK is still building the field can be lost: then the dialog is still up a minute
    /// later, and the same keys are sent again (12 rounds at most). `folder` holds the clipboard's file.
    func enter(_ path: String, into w: TopLevelWindow, selecting select: String, folder: URL) async throws {
        let env = ["DISPLAY": x.display]
        let pathFile = folder.appendingPathComponent("path.txt")
        try path.write(to: pathFile, atomically: true, encoding: .utf8)
        let clipboard = try Tools.spawn(["xclip", "-quiet", "-selection", "clipboard", "-i", pathFile.path], environment: env)
        defer { clipboard.terminate() }
        #expect(await Tools.eventually {
            (try? await Tools.run(["xclip", "-o", "-selection", "clipboard"], environment: env))?.stdout == path
        }, "xclip never held the path")
        for _ in 0..<12 {
            #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(w.id)], environment: env).status == 0)
            for key in [select, "ctrl+v", "Return"] {
                #expect(try await Tools.run([xdotool, "key", "--delay", "300", key], environment: env).status == 0)
            }
            // A minute before the keys go again: beside CPU hogs GTK once took longer than 20 s over
            // a round's keys, and the next round's, queued behind them, left "…binvv" in the field.
            let closed = await Tools.eventually(timeout: .seconds(60)) {
                (try? x.topLevelWindows().contains { $0.id == w.id && $0.isMapped }) == false
            }
            if closed { return }
        }
    }
}
