import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The dialogs as a person meets them (scripts/schemebridge-dialog on Xvfb): the chooser and the
/// picker with icons and keys, the German sheet, a session without LANG, and what a screen
/// reader finds (AT-SPI through at-spi2-core).
@Suite struct DialogScreenTests {
    /// `open --ask notes.md` as the service asks it: the Markdown viewer (the default), then the
    /// `text/plain` apps (the parent type's, as GIO offers them), from the command line.
    static let markdown = DialogRequest(
        kind: .type, subject: "text/markdown", caller: .init(id: "", name: "", commandLine: true),
        candidates: [.init(id: "org.example.MarkdownViewer.desktop", name: "Markdown Viewer", icon: "accessories-text-editor"),
                     .init(id: "org.xfce.mousepad.desktop", name: "Mousepad", icon: "text-editor"),
                     .init(id: "vim.desktop", name: "Vim", icon: "gvim"), .init(id: "ed.desktop", name: "ed", icon: "")],
        canRemember: false)

    static let pick = DialogRequest(
        kind: .pick, subject: "pick:image/png", caller: .init(id: "org.example.Mail", name: "Mail"),
        candidates: [.init(id: "org.example.Photos.desktop", name: "Photos", icon: "multimedia-photo-manager"),
                     .init(id: "org.example.Scanner.desktop", name: "Document Scanner", icon: "scanner"),
                     .init(id: "io.github.schemebridge.Files.desktop", name: "Files…", icon: "")],
        canRemember: true, title: "Insert a Photo")

    /// The chooser lists every app with its icon (the theme's, else a generic one), the default
    /// first and selected; Down and Enter open the next; Escape cancels. Saved as
    /// docs/images/chooser-markdown.png.
    @Test func theChooserShowsIconsAndParentTypeAppsAndTakesKeys() async throws {
        let s = try DialogRun(Self.markdown)
        defer { s.stop() }
        _ = try await Tools.run([s.xdotool, "mousemove", "0", "0"], environment: ["DISPLAY": s.x.display])
        let w = try #require(try await s.window(titled: "Open With"), "no chooser came up\n\(s.log)")
        #expect(try DialogRun.colours(of: w, on: s.x) > 50)
        try await DialogRun.screenshot(w, on: s.x, named: "chooser-markdown")
        try await s.type(["Down", "Return"], into: w)
        #expect(await s.result().answer?.pick == DialogAnswer(.chosen, id: "org.xfce.mousepad.desktop", always: false))
    }

    /// Type-ahead: typing "vim" finds Vim ("vi" is Markdown Viewer too: names match anywhere); Enter opens it.
    @Test func typingFindsAnApp() async throws {
        let s = try DialogRun(Self.markdown)
        defer { s.stop() }
        let r = try await s.answer(after: ["v", "i", "m", "Return"], title: "Open With")
        #expect(r.answer?.pick == DialogAnswer(.chosen, id: "vim.desktop", always: false))
    }

    /// The picker: its window is titled with the caller's title, its button says "Choose", and
    /// "Always use this for Mail" (Alt+A) is answered. Saved as docs/images/picker.png.
    @Test func thePickerChoosesWhereTheDocumentComesFrom() async throws {
        let s = try DialogRun(Self.pick)
        defer { s.stop() }
        _ = try await Tools.run([s.xdotool, "mousemove", "0", "0"], environment: ["DISPLAY": s.x.display])
        let w = try #require(try await s.window(titled: "Insert a Photo"), "no picker came up\n\(s.log)")
        try await DialogRun.screenshot(w, on: s.x, named: "picker")
        try await s.type(["End", "alt+a", "alt+h"], into: w)
        #expect(await s.result().answer?.pick == DialogAnswer(.chosen, id: "io.github.schemebridge.Files.desktop", always: true))
    }

    /// A session without LANG (`env -i`: the C locale): the dialog comes up and answers.
    @Test func itWorksWithoutLANG() async throws {
        let s = try DialogRun(Self.markdown, clean: true)
        defer { s.stop() }
        let r = try await s.answer(after: ["Return"], title: "Open With")
        #expect(r.answer?.pick == DialogAnswer(.chosen, id: "org.example.MarkdownViewer.desktop", always: false), "\(s.log)")
    }

    /// No display: the dialog answers `failed` with the reason and exits 2 (the service's NoChooser).
    @Test func withoutADisplayItFailsWithTheReason() async throws {
        let r = try await Tools.run(["/usr/bin/env", "-i", "HOME=/tmp", DialogRun.program], stdin: String(decoding: Self.markdown.line, as: UTF8.self))
        #expect(r.status == 2)
        let answer = try DialogAnswer(output: Array(r.stdout.utf8))
        #expect(answer.answer == .failed)
        #expect(answer.reason?.contains("cannot open the display") == true, "\(answer)")
    }

    /// The sheet in German under LANG=de_DE.UTF-8 (the catalog compiled from dialogs/po/de.po:
    /// Python's gettext reads LANG itself, so no de_DE locale need be generated; this machine has
    /// only C.UTF-8). Saved as docs/images/sheet-de.png.
    @Test func theSheetSpeaksGerman() async throws {
        let locale = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-locale-\(UUID().uuidString.prefix(8))")
        let mo = locale.appendingPathComponent("de/LC_MESSAGES")
        try FileManager.default.createDirectory(at: mo, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: locale) }
        let msgfmt = try await Tools.run(["msgfmt", "--check", "-o", mo.appendingPathComponent("schemebridge-dialogs.mo").path,
                                          Built.packageRoot.appendingPathComponent("dialogs/po/de.po").path])
        #expect(msgfmt.status == 0, "\(msgfmt.stderr)")
        let request = ShareSheetTests.request(caller: "Fotos", items: [.init(kind: .url, url: "https://example.org/hafen")])
        let s = try DialogRun(request, environment: ["LANG": "de_DE.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "",
                                                     "SCHEMEBRIDGE_DIALOGS_LOCALEDIR": locale.path])
        defer { s.stop() }
        _ = try await Tools.run([s.xdotool, "mousemove", "0", "0"], environment: ["DISPLAY": s.x.display])
        let w = try #require(try await s.window(titled: "Teilen aus Fotos"), "no German sheet came up\n\(s.log)")
        try await DialogRun.screenshot(w, on: s.x, named: "sheet-de")
        // "_Teilen": Alt+T shares with the selected target.
        try await s.type(["alt+t"], into: w)
        #expect(await s.result().answer?.pick == ShareSheetTests.chosen("org.example.Sketch.desktop:share"))
    }

    /// What a screen reader finds of the sheet (at-spi2-core's bus and registry, gi Atspi): every
    /// target is a named list item, every button a named push button, the "Always" box a named
    /// check box, the preview a named image; nothing that shows is an unnamed control.
    @Test func aScreenReaderCanUseTheSheet() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let env = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DISPLAY": x.display]
        let a11y = try await AccessibilityBus(sessionBus: bus.address, display: x.display)
        defer { a11y.stop() }
        // The sheet on that display and bus (GTK 3's atk-bridge finds the accessibility bus there).
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-a11y-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(ShareSheetTests.request().line).write(to: dir.appendingPathComponent("in"))
        var sheetEnv = ProcessInfo.processInfo.environment
        for (k, v) in env { sheetEnv[k] = v }
        for (k, v) in a11y.environment { sheetEnv[k] = v }  // its home and runtime folder: the bridge's socket goes there, not to ~/.cache
        sheetEnv["NO_AT_BRIDGE"] = nil
        let sheet = try ChildProcess([DialogRun.program], environment: sheetEnv, stdin: dir.appendingPathComponent("in").path,
                                     stdout: dir.appendingPathComponent("out").path, stderr: dir.appendingPathComponent("err").path)
        defer { sheet.terminate() }
        let tree = try await a11y.tree(app: "schemebridge-dialog", title: "Share from Photos")
        let lines = Set(tree)
        for name in ["Sketch", "Notes", "Send to Pixel", "Copy", "Save to…"] {
            #expect(lines.contains("list item\t\(name)"), "\(name) is not a named list item:\n\(tree)")
        }
        for expected in ["push button\tShare", "push button\tCancel", "check box\tAlways use this for Photos"] {
            #expect(lines.contains(expected), "\(expected) missing:\n\(tree)")
        }
        #expect(lines.contains { $0.hasPrefix("icon\tPreview of ") }, "no named preview:\n\(tree)")
        let unnamed = lines.filter { ["push button\t", "check box\t", "list item\t", "toggle button\t"].contains($0) }
        #expect(unnamed.isEmpty, "unnamed controls: \(unnamed)\n\(tree)")
    }

    /// `parent-window` `x11:XID`: the dialog is transient for that window (WM_TRANSIENT_FOR), as
    /// a portal dialog is for its caller's.
    @Test func theDialogIsTransientForTheCallersWindow() async throws {
        let parent = try DialogRun(Self.markdown)
        defer { parent.stop() }
        let owner = try #require(try await parent.window(titled: "Open With"), "no parent window\n\(parent.log)")
        var request = Self.pick
        request.parentWindow = "x11:" + String(owner.id, radix: 16)
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-transient-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(request.line).write(to: dir.appendingPathComponent("in"))
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = parent.x.display
        env["WAYLAND_DISPLAY"] = nil
        let child = try ChildProcess([DialogRun.program], environment: env, stdin: dir.appendingPathComponent("in").path,
                                     stdout: dir.appendingPathComponent("out").path, stderr: dir.appendingPathComponent("err").path)
        defer { child.terminate() }
        let w = try #require(try await DialogRun.window(on: parent.x, titled: "Insert a Photo"), "no picker came up")
        #expect(try parent.x.cardinalProperty("WM_TRANSIENT_FOR", of: w.id) == Int(owner.id))
    }
}
