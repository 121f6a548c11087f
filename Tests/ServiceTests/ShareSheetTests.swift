import Foundation
import Testing
import DBusTestSupport

/// The shipped share sheet (`scripts/schemebridge-sheet`, from the source tree) on a private Xvfb,
/// run as the service runs it: candidates on stdin ("id TAB name TAB icon TAB kind"), the share's
/// description in the environment. Real key presses and clicks (xdotool) pick; its stdout is what
/// the service reads.
@Suite struct ShareSheetTests {
    /// Two apps, a device and two built-in activities, as the service would list them.
    static let candidates = """
        org.example.Sketch.desktop:share\tSketch\taccessories-text-editor\tapp
        org.example.Notes.desktop:share\tNotes\ttext-x-generic\tapp
        kdeconnect:abc123\tSend to Pixel\tsmartphone\tdevice
        builtin:copy\tCopy\tedit-copy\tbuiltin
        builtin:save\tSave to…\tdocument-save\tbuiltin

        """

    /// One sheet on a display of its own.
    struct Sheet {
        let x: Xvfb
        let process: ChildProcess
        let out: URL
        let xdotool: String

        init(candidates: String = ShareSheetTests.candidates, caller: String = "Photos", canRemember: Bool = true,
             backend: String? = nil) throws {
            xdotool = try Tools.path(of: "xdotool")
            x = try Xvfb(width: 800, height: 600)
            let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-sheet-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let input = dir.appendingPathComponent("in")
            out = dir.appendingPathComponent("out")
            try Data(candidates.utf8).write(to: input)
            var env = ProcessInfo.processInfo.environment
            env["DISPLAY"] = x.display
            env["WAYLAND_DISPLAY"] = nil
            env["SCHEMEBRIDGE_CHOOSER_KIND"] = "share"
            env["SCHEMEBRIDGE_SHARE_TYPES"] = "image/png,text/plain"
            env["SCHEMEBRIDGE_SHARE_COUNT"] = "2"
            env["SCHEMEBRIDGE_CHOOSER_CALLER"] = "org.example.Photos"
            env["SCHEMEBRIDGE_CHOOSER_CALLER_NAME"] = caller
            env["SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER"] = canRemember ? "1" : "0"
            if let backend { env["SCHEMEBRIDGE_SHEET_BACKEND"] = backend }
            process = try ChildProcess([Built.packageRoot.appendingPathComponent("scripts/schemebridge-sheet").path], environment: env,
                                       stdin: input.path, stdout: out.path, stderr: dir.appendingPathComponent("err").path)
        }

        func stop() {
            process.terminate()
            x.stop()
            try? FileManager.default.removeItem(at: out.deletingLastPathComponent())
        }

        /// The sheet's window once it is mapped and drawn: its X id, found by its title.
        func window(titled title: String = "Share from Photos") async throws -> TopLevelWindow? {
            var found: UInt?
            _ = try await Tools.eventually {
                let run = try await Tools.run([xdotool, "search", "--onlyvisible", "--name", "^\(title)$"], environment: ["DISPLAY": x.display],
                                              timeout: Tools.eventCeiling)
                found = run.stdout.split(separator: "\n").first.flatMap { UInt($0) }
                return found != nil || !process.isRunning
            }
            guard let id = found else { return nil }
            var window: TopLevelWindow?
            _ = await Tools.eventually {
                window = try? x.topLevelWindows().first { $0.id == id && $0.isMapped && $0.width > 200 && $0.height > 150 }
                return window != nil
            }
            guard let w = window else { return nil }
            // Drawn: most of the window's area is no longer the black root.
            let drawn = await x.watch { shot in shot.boundingBox().map { $0.width >= w.width * 3 / 4 && $0.height >= w.height * 3 / 4 } ?? false }
            return drawn == nil ? nil : w
        }

        /// Focuses `window` and types `keys` (xdotool key names).
        func type(_ keys: [String], into window: TopLevelWindow) async throws {
            let env = ["DISPLAY": x.display]
            #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(window.id)], environment: env).status == 0)
            #expect(try await Tools.run([xdotool, "key", "--delay", "100"] + keys, environment: env).status == 0)
        }

        /// The exit status and what the sheet printed, once it has exited.
        func result() async -> (status: Int32, output: String) {
            let status = await process.wait()
            return (status, (try? String(contentsOf: out, encoding: .utf8)) ?? "")
        }

        /// Waits for the sheet, types `keys` into it and returns how it ended.
        func answer(after keys: [String], title: String = "Share from Photos") async throws -> (status: Int32, output: String) {
            let w = try #require(try await window(titled: title), "no sheet came up\n\(log)")
            try await type(keys, into: w)
            return await result()
        }

        var log: String { (try? String(contentsOf: out.deletingLastPathComponent().appendingPathComponent("err"), encoding: .utf8)) ?? "" }
    }

    @Test func arrowsAndEnterPickATargetAndItsIdIsPrinted() async throws {
        let s = try Sheet()
        defer { s.stop() }
        // Sketch is selected first; Right is Notes.
        let r = try await s.answer(after: ["Right", "Return"])
        #expect(r.status == 0)
        #expect(r.output == "org.example.Notes.desktop:share\n")
    }

    /// The arrows cross the groups: Down from the apps is the device, again the built-ins.
    @Test func downCrossesFromAppsToDevicesToActions() async throws {
        let s = try Sheet()
        defer { s.stop() }
        let r = try await s.answer(after: ["Down", "Down", "Right", "Return"])
        #expect(r.status == 0)
        #expect(r.output == "builtin:save\n")
    }

    @Test func escapeCancelsWithExitOneAndNoOutput() async throws {
        let s = try Sheet()
        defer { s.stop() }
        let r = try await s.answer(after: ["Escape"])
        #expect(r.status == 1)
        #expect(r.output.isEmpty)
    }

    /// "Always for this app" (Alt+A ticks it) adds TAB "always"; without can-remember there is no
    /// check box, and Alt+A does nothing.
    @Test func alwaysForThisAppIsPrintedWhenTicked() async throws {
        let s = try Sheet()
        defer { s.stop() }
        let r = try await s.answer(after: ["alt+a", "Return"])
        #expect(r.status == 0)
        #expect(r.output == "org.example.Sketch.desktop:share\talways\n")

        let plain = try Sheet(canRemember: false)
        defer { plain.stop() }
        let r2 = try await plain.answer(after: ["alt+a", "Right", "Return"])
        #expect(r2.status == 0)
        #expect(r2.output == "org.example.Notes.desktop:share\n")
    }

    /// A click on a target shares with it at once (the second tile of the first row).
    @Test func aClickPicks() async throws {
        let s = try Sheet()
        defer { s.stop() }
        let w = try #require(try await s.window(), "no sheet came up\n\(s.log)")
        let env = ["DISPLAY": s.x.display]
        // The tiles are a quarter of the window wide, the first row below the title lines.
        let x = w.x + w.width * 3 / 8, y = w.y + 140
        #expect(try await Tools.run([s.xdotool, "mousemove", "--sync", String(x), String(y), "click", "1"], environment: env).status == 0)
        let r = await s.result()
        #expect(r.status == 0)
        #expect(r.output == "org.example.Notes.desktop:share\n")
    }

    /// The screen shows the dialog: its title names the sharing app, and it is a drawn window of
    /// many colours (icons, text), not an empty one.
    @Test func theScreenShowsTheSheet() async throws {
        let s = try Sheet()
        defer { s.stop() }
        let w = try #require(try await s.window(), "no sheet came up\n\(s.log)")
        let shot = try s.x.screenshot(x: w.x, y: w.y, width: w.width, height: w.height)
        var colours = Set<UInt32>()
        for i in stride(from: 0, to: shot.rgb.count, by: 3) {
            colours.insert(UInt32(shot.rgb[i]) << 16 | UInt32(shot.rgb[i + 1]) << 8 | UInt32(shot.rgb[i + 2]))
        }
        #expect(colours.count > 50, "the window has \(colours.count) colours: not a drawn dialog")
        let name = try await Tools.run([s.xdotool, "getwindowname", String(w.id)], environment: ["DISPLAY": s.x.display])
        #expect(name.stdout == "Share from Photos\n")
        try await s.type(["Escape"], into: w)
        #expect(await s.result().status == 1)
    }

    /// Hostile names: markup, control characters, bidi overrides, 100,000 characters; an id that
    /// starts with "-" or holds a control character is not offered; 2,000 candidates. The sheet
    /// comes up titled with the caller's name as plain text, and picks.
    @Test func hostileNamesAreShownAsPlainTextAndDoNotBreakIt() async throws {
        let huge = String(repeating: "W", count: 100_000)
        var input = "--help\tDash\t\tapp\nbad\u{1B}id\tEscape\t\tapp\n"
        input += "a.desktop:x\t<b>bold</b> &amp; <span size='99999'>big</span>\t/etc/passwd\tapp\n"
        input += "b.desktop:x\t\(huge)\t\(huge)\tapp\n"
        input += "c.desktop:x\tEvil\u{202E}txt.exe\u{01}\u{7F}\tnot-an-icon\tweird-kind\n"
        for i in 0..<2000 { input += "n\(i).desktop:x\tTarget \(i)\t\tapp\n" }
        let s = try Sheet(candidates: input, caller: "<i>Mal</i>\u{1B}[31m")
        defer { s.stop() }
        let w = try #require(try await s.window(titled: "Share from <i>Mal</i> \\[31m"), "no sheet came up\n\(s.log)")
        #expect(w.width < 800 && w.height <= 600, "the sheet grew with the names: \(w.width)×\(w.height)")
        // The first offered is the markup one (the two bad ids are left out); Right is the huge one.
        try await s.type(["Right", "Return"], into: w)
        let r = await s.result()
        #expect(r.status == 0)
        #expect(r.output == "b.desktop:x\n")
    }

    /// Without gi (or forced), the sheet is zenity's list with an image column; Return on the
    /// selected row shares with it.
    @Test func zenityFallbackPicks() async throws {
        _ = try Tools.path(of: "zenity")
        let s = try Sheet(backend: "zenity")
        defer { s.stop() }
        // zenity's list starts with no row selected and the cursor on the first: Down is Notes.
        let r = try await s.answer(after: ["Down", "Return"])
        #expect(r.status == 0)
        #expect(r.output == "org.example.Notes.desktop:share\n")
    }
}

/// The sheet run by the service: a share with no `target` shows `schemebridge-sheet` (on the
/// service's PATH, as if installed beside it) on Xvfb; it lists the two targets that take the
/// items and not the one that does not; a real key press picks, and the Response names the pick.
@Suite struct ShareSheetServiceTests {
    /// Shares `items` with `options` (JSON texts) in the background: the Response's code and
    /// target (or everything the sharer printed, when there is none).
    static func share(_ f: ServiceFixture, _ items: String, _ options: String = "{}") -> Task<(code: Int?, target: String), any Error> {
        Task { () async throws -> (code: Int?, target: String) in
            let out = try await ShareTests.share(f, items, options)
            let response = ShareTests.responses(out).first
            return (response?["code"] as? Int, (response?["results"] as? [String: String])?["target"] ?? "\(out)")
        }
    }

    /// The sheet's window on `x` once it is mapped and drawn: its X id, found by its title.
    static func sheet(on x: Xvfb, titled title: String) async throws -> UInt? {
        let xdotool = try Tools.path(of: "xdotool")
        var found: UInt?
        _ = try await Tools.eventually {
            let run = try await Tools.run([xdotool, "search", "--onlyvisible", "--name", "^\(title)$"], environment: ["DISPLAY": x.display])
            found = run.stdout.split(separator: "\n").first.flatMap { UInt($0) }
            return found != nil
        }
        guard let id = found, let w = try x.topLevelWindows().first(where: { $0.id == id }) else { return nil }
        return await x.watch { shot in shot.boundingBox().map { $0.width >= w.width * 3 / 4 } ?? false } != nil ? id : nil
    }

    @Test func theServiceShowsTheSheetAndAKeyPicksTheTarget() async throws {
        let xdotool = try Tools.path(of: "xdotool")
        _ = try Tools.path(of: "zenity")  // the service's shipped chooser lookup wants a dialog program
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "WAYLAND_DISPLAY": ""])
        defer { f.stop() }
        try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-sheet").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-sheet").path)
        try ShareTests.entry(f, "postcard.desktop", types: "image/*;text/plain;", program: try ShareTests.target(f, "postcard"))
        try ShareTests.entry(f, "scrapbook.desktop", types: "image/*;text/*;", program: try ShareTests.target(f, "scrapbook"))
        try ShareTests.entry(f, "memo.desktop", types: "text/plain;", program: try ShareTests.target(f, "memo"))
        let photo = f.root.appendingPathComponent("photo.png").path
        #expect(FileManager.default.createFile(atPath: photo, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 100))))
        let shared = Self.share(f, #"[{"file": "\#(photo)"}, {"text": "a line of text"}]"#)
        // The sheet's window, titled with the sharing program (python running sharer.py).
        let id = try #require(try await Self.sheet(on: x, titled: "Share from sharer.py"), "no sheet came up\n\(f.serviceLog)")
        let env = ["DISPLAY": x.display]
        #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(id)], environment: env).status == 0)
        // The first of the two is selected; Right is the other.
        #expect(try await Tools.run([xdotool, "key", "--delay", "100", "Right", "Return"], environment: env).status == 0)
        let (code, target) = try await shared.value
        #expect(code == 0, "\(target)\n\(f.serviceLog)")
        // The service lists targets by name: Postcard first (selected), Right is Scrapbook.
        #expect(target == "scrapbook.desktop:share", "\(target)")
        #expect(await f.recordedArgv("scrapbook") != nil, "the picked target did not run")
        #expect(await f.recordedArgv("postcard", timeout: .seconds(1)) == nil)
        #expect(await f.recordedArgv("memo", timeout: .seconds(1)) == nil)
    }
}
