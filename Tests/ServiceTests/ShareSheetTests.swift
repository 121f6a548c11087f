import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The shipped share sheet (`scripts/schemebridge-dialog` with a `share` request, from the source
/// tree) on a private Xvfb, run as the service runs it (DialogRun). Real key presses and clicks
/// (xdotool) pick; its answer is what the service reads.
@Suite struct ShareSheetTests {
    /// Two apps, a device and two built-in activities, as the service would list them.
    static let targets: [DialogRequest.Candidate] = [
        .init(id: "org.example.Sketch.desktop:share", name: "Sketch", icon: "accessories-text-editor", kind: .app),
        .init(id: "org.example.Notes.desktop:share", name: "Notes", icon: "text-x-generic", kind: .app),
        .init(id: "kdeconnect:abc123", name: "Send to Pixel", icon: "smartphone", kind: .device),
        .init(id: "builtin:copy", name: "Copy", icon: "edit-copy", kind: .builtin),
        .init(id: "builtin:save", name: "Save to…", icon: "document-save", kind: .builtin),
    ]

    static func request(targets: [DialogRequest.Candidate] = targets, caller: String = "Photos", canRemember: Bool = true,
                        items: [DialogRequest.Item] = [.init(kind: .file, name: "photo.png", type: "image/png", size: 2_400_000),
                                                       .init(kind: .text, type: "text/plain", text: "a line")]) -> DialogRequest {
        DialogRequest(kind: .share, subject: "x-schemebridge/share", caller: .init(id: "org.example.Photos", name: caller), candidates: targets,
                      canRemember: canRemember, share: .init(count: items.count, types: Array(Set(items.compactMap(\.type))).sorted(), items: items))
    }

    static func chosen(_ id: String, always: Bool = false) -> DialogAnswer { DialogAnswer(.chosen, id: id, always: always) }

    @Test func arrowsAndEnterPickATargetAndItsIdIsAnswered() async throws {
        let s = try DialogRun(Self.request())
        defer { s.stop() }
        // Sketch is selected first; Right is Notes.
        let r = try await s.answer(after: ["Right", "Return"], title: "Share from Photos")
        #expect(r.status == 0)
        #expect(r.answer?.pick == Self.chosen("org.example.Notes.desktop:share"))
        // An app is started: with a startup id of the key press that chose (DialogLaunchTokenTests).
        #expect(r.answer?.activationToken?.hasPrefix("schemebridge-dialog-") == true, "\(String(describing: r.answer))")
    }

    /// The arrows cross the groups: Down from the apps is the device, again the built-ins.
    @Test func downCrossesFromAppsToDevicesToActions() async throws {
        let s = try DialogRun(Self.request())
        defer { s.stop() }
        let r = try await s.answer(after: ["Down", "Down", "Right", "Return"], title: "Share from Photos")
        #expect(r.answer?.pick == Self.chosen("builtin:save"))
    }

    @Test func escapeCancels() async throws {
        let s = try DialogRun(Self.request())
        defer { s.stop() }
        let r = try await s.answer(after: ["Escape"], title: "Share from Photos")
        #expect(r.status == 0)
        #expect(r.answer == DialogAnswer(.cancelled))
    }

    /// Typing a name finds the target (type-ahead); Enter shares with it.
    @Test func typingANameFindsTheTarget() async throws {
        let s = try DialogRun(Self.request())
        defer { s.stop() }
        let r = try await s.answer(after: ["p", "i", "x", "Return"], title: "Share from Photos")
        #expect(r.answer?.pick == Self.chosen("kdeconnect:abc123"))
        #expect(r.answer?.activationToken == nil, "a device starts no app: no token")
    }

    /// "Always use this for Photos" (Alt+A ticks it) answers `always`; without can-remember there is
    /// no check box, and Alt+A does nothing.
    @Test func alwaysIsAnsweredWhenTicked() async throws {
        let s = try DialogRun(Self.request())
        defer { s.stop() }
        let r = try await s.answer(after: ["alt+a", "Return"], title: "Share from Photos")
        #expect(r.answer?.pick == Self.chosen("org.example.Sketch.desktop:share", always: true))

        let plain = try DialogRun(Self.request(canRemember: false))
        defer { plain.stop() }
        let r2 = try await plain.answer(after: ["alt+a", "Right", "Return"], title: "Share from Photos")
        #expect(r2.answer?.pick == Self.chosen("org.example.Notes.desktop:share"))
    }

    /// A click on a target shares with it at once (the second tile of the first row).
    @Test func aClickPicks() async throws {
        let s = try DialogRun(Self.request())
        defer { s.stop() }
        let w = try #require(try await s.window(titled: "Share from Photos"), "no sheet came up\n\(s.log)")
        let env = ["DISPLAY": s.x.display]
        // The tiles are a quarter of the window wide; the first row is below the preview.
        let x = w.x + w.width * 3 / 8, y = w.y + 200
        #expect(try await Tools.run([s.xdotool, "mousemove", "--sync", String(x), String(y), "click", "1"], environment: env).status == 0)
        let r = await s.result()
        #expect(r.answer?.pick == Self.chosen("org.example.Notes.desktop:share"), "\(s.log)")
    }

    /// The screen shows what is shared: an image share's thumbnail (a 12-megapixel JPEG, scaled
    /// by its loader after the first frame) beside its name and size. Saved as
    /// docs/images/sheet-image.png.
    @Test func theSheetShowsTheImagesThumbnail() async throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-photo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = dir.appendingPathComponent("Harbour at dusk.jpg").path
        try await DialogRun.makePicture(photo, width: 4000, height: 3000)
        let size = try FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int
        let s = try DialogRun(Self.request(items: [.init(kind: .file, name: "Harbour at dusk.jpg", type: "image/jpeg", size: size, path: photo)]))
        defer { s.stop() }
        let w = try #require(try await s.window(titled: "Share from Photos"), "no sheet came up\n\(s.log)")
        // The thumbnail: the preview square (top left, 96 px) fills with the picture's colours.
        let shown = await s.x.watch { _ in
            guard let shot = try? s.x.screenshot(x: w.x + 14, y: w.y + 14, width: 96, height: 96) else { return false }
            var colours = Set<UInt32>()
            for i in stride(from: 0, to: shot.rgb.count, by: 3) { colours.insert(UInt32(shot.rgb[i]) << 16 | UInt32(shot.rgb[i + 1]) << 8 | UInt32(shot.rgb[i + 2])) }
            return colours.count > 300
        }
        #expect(shown != nil, "no thumbnail came up\n\(s.log)")
        try await DialogRun.screenshot(w, on: s.x, named: "sheet-image")
        try await s.type(["Escape"], into: w)
        #expect(await s.result().answer == DialogAnswer(.cancelled))
    }

    /// A URL share shows the URL. Saved as docs/images/sheet-url.png.
    @Test func theSheetShowsTheURL() async throws {
        let s = try DialogRun(Self.request(caller: "Web Browser", items: [.init(kind: .url, url: "https://example.org/articles/harbour?ref=share")]))
        defer { s.stop() }
        let w = try #require(try await s.window(titled: "Share from Web Browser"), "no sheet came up\n\(s.log)")
        #expect(try DialogRun.colours(of: w, on: s.x) > 50)
        try await DialogRun.screenshot(w, on: s.x, named: "sheet-url")
        try await s.type(["Escape"], into: w)
        #expect(await s.result().answer == DialogAnswer(.cancelled))
    }

    /// Hostile names: markup, control characters, bidi overrides, 100,000 characters; an id that
    /// starts with "-" or holds a control character is not offered; 2,000 candidates. The sheet
    /// comes up titled with the caller's name as plain text, and picks.
    @Test func hostileNamesAreShownAsPlainTextAndDoNotBreakIt() async throws {
        let huge = String(repeating: "W", count: 100_000)
        var targets: [DialogRequest.Candidate] = [.init(id: "--help", name: "Dash", icon: ""), .init(id: "bad\u{1B}id", name: "Escape", icon: ""),
                                                  .init(id: "a.desktop:x", name: "<b>bold</b> &amp; <span size='99999'>big</span>", icon: "/etc/passwd"),
                                                  .init(id: "b.desktop:x", name: huge, icon: huge),
                                                  .init(id: "c.desktop:x", name: "Evil\u{202E}txt.exe\u{01}\u{7F}", icon: "not-an-icon")]
        for i in 0..<2000 { targets.append(.init(id: "n\(i).desktop:x", name: "Target \(i)", icon: "")) }
        let s = try DialogRun(Self.request(targets: targets, caller: "<i>Mal</i>\u{1B}[31m"))
        defer { s.stop() }
        let w = try #require(try await s.window(titled: "Share from <i>Mal</i> [31m"), "no sheet came up\n\(s.log)")
        #expect(w.width < 800 && w.height <= 600, "the sheet grew with the names: \(w.width)×\(w.height)")
        // The first offered is the markup one (the two bad ids are left out); Right is the huge one.
        try await s.type(["Right", "Return"], into: w)
        #expect(await s.result().answer?.pick == Self.chosen("b.desktop:x"))
    }

    /// A request that is not one (another version, not JSON) is answered `failed` with exit 2:
    /// the service reports NoChooser, never a cancel.
    @Test func aRequestThatIsNotOneFails() async throws {
        for line in ["{\"version\":2,\"kind\":\"share\"}\n", "id\tname\ticon\tapp\n"] {
            let r = try await Tools.run([DialogRun.program], stdin: line)
            #expect(r.status == 2)
            let answer = try DialogAnswer(output: Array(r.stdout.utf8))
            #expect(answer.answer == .failed, "\(r.stdout)")
            #expect(r.stderr.contains("not a request"), "\(r.stderr)")
        }
    }
}

/// The sheet run by the service: a share with no `target` shows `schemebridge-dialog` (on the
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
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "WAYLAND_DISPLAY": ""])
        defer { f.stop() }
        try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-dialog").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path)
        try ShareTests.entry(f, "postcard.desktop", types: "image/*;text/plain;", program: try ShareTests.target(f, "postcard"))
        try ShareTests.entry(f, "scrapbook.desktop", types: "image/*;text/*;", program: try ShareTests.target(f, "scrapbook"))
        try ShareTests.entry(f, "memo.desktop", types: "text/plain;", program: try ShareTests.target(f, "memo"))
        let photo = f.root.appendingPathComponent("photo.png").path
        #expect(FileManager.default.createFile(atPath: photo, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 100))))
        let shared = Self.share(f, #"[{"file": "\#(photo)"}, {"text": "a line of text"}]"#)
        // The sheet's window, titled with the sharing program (python running sharer.py).
        let id = try #require(try await Self.sheet(on: x, titled: "Share from sharer.py"), "no sheet came up\n\(f.serviceLog)")
        // A script as the sharer, named by its file; what is shared: two items, the photo's name. Saved as docs/images/sheet-script.png.
        if let w = try x.topLevelWindows().first(where: { $0.id == id }) { try await DialogRun.screenshot(w, on: x, named: "sheet-script") }
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
