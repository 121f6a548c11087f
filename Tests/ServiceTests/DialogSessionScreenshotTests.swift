import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The three dialogs — the sheet (a photo's thumbnail), the chooser, the picker — in the two
/// sessions the Xvfb pictures do not show: as native Wayland clients of a headless weston
/// (`*-wayland.png`: weston's own screenshot, cut to the dialog), and in a bare session
/// (`*-bare.png`: `env -i` with only what the service hands a dialog — `HOME`, `DISPLAY` and the
/// session bus; no `LANG`, no `XDG_*`, no `PATH`). Each must come up and draw; the pictures go to
/// `$SCHEMEBRIDGE_SCREENSHOTS` (docs/images when refreshing the docs), else `.build/test-artifacts/screenshots`.
@Suite struct DialogSessionScreenshotTests {
    /// The sheet for `photo` (a JPEG), the chooser and the picker, with the names their pictures get.
    static func dialogs(photo: String) throws -> [(name: String, request: DialogRequest)] {
        let size = try FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int
        let sheet = ShareSheetTests.request(items: [.init(kind: .file, name: "Harbour at dusk.jpg", type: "image/jpeg", size: size, path: photo)])
        return [("sheet", sheet), ("chooser", DialogScreenTests.markdown), ("picker", DialogScreenTests.pick)]
    }

    static func photo(in dir: URL) async throws -> String {
        let photo = dir.appendingPathComponent("Harbour at dusk.jpg").path
        try await DialogRun.makePicture(photo, width: 4000, height: 3000)
        return photo
    }

    /// The box of `shot` (below weston's panel, y ≥ 40) whose pixels differ from `base` (the
    /// bytes compared in place: a debug build's per-pixel arrays take seconds for a screen).
    static func changed(_ shot: Screenshot, from base: Screenshot) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard shot.width == base.width, shot.height == base.height else { return (0, 0, shot.width, shot.height) }
        var (x0, y0, x1, y1) = (Int.max, Int.max, -1, -1)
        shot.rgb.withUnsafeBufferPointer { a in
            base.rgb.withUnsafeBufferPointer { b in
                for y in 40..<shot.height {
                    var i = y * shot.width * 3
                    for x in 0..<shot.width {
                        if a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2] {
                            x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                        }
                        i += 3
                    }
                }
            }
        }
        return x1 < 0 ? nil : (x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    }

    /// How many colours `shot` shows inside `box`.
    static func colours(_ shot: Screenshot, in box: (x: Int, y: Int, width: Int, height: Int)) -> Int {
        var seen = Set<UInt32>()
        shot.rgb.withUnsafeBufferPointer { p in
            for y in box.y..<(box.y + box.height) {
                for x in box.x..<(box.x + box.width) {
                    let i = (y * shot.width + x) * 3
                    seen.insert(UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]))
                }
            }
        }
        return seen.count
    }

    /// Cuts `box` (and a margin of 12 pixels) out of the PNG `from` into the PNG `to`.
    static func crop(_ from: URL, _ box: (x: Int, y: Int, width: Int, height: Int), to: URL) async throws {
        let script = """
            import sys, gi
            gi.require_version("GdkPixbuf", "2.0")
            from gi.repository import GdkPixbuf
            pb = GdkPixbuf.Pixbuf.new_from_file(sys.argv[1])
            x, y, w, h = (int(v) for v in sys.argv[3:7])
            x0, y0 = max(0, x - 12), max(0, y - 12)
            x1, y1 = min(pb.get_width(), x + w + 12), min(pb.get_height(), y + h + 12)
            pb.new_subpixbuf(x0, y0, x1 - x0, y1 - y0).savev(sys.argv[2], "png", [], [])
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, from.path, to.path, String(box.x), String(box.y), String(box.width), String(box.height)])
        guard r.status == 0 else { throw ToolError("cannot crop \(from.path): \(r.stderr)") }
    }

    /// On weston (headless, pixman): each dialog a native Wayland client (no `DISPLAY`), drawn
    /// on the output — the sheet with its thumbnail (the photo's many colours) — and kept as
    /// `NAME-wayland.png`.
    @Test func onWestonEachDialogIsANativeWaylandWindow() async throws {
        let weston = try Weston(width: 900, height: 700)
        defer { weston.stop() }
        let work = weston.runtimeDirectory.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let photo = try await Self.photo(in: work)
        // The empty desktop as it stays: weston fades its output in at start (slowly under load), and
        // a base taken during the fade differs from every later screenshot everywhere — a dialog
        // would be "drawn" before it is and never "gone". So: the desktop's pattern (not a black
        // output) the same in two screenshots in a row.
        let baseFile = work.appendingPathComponent("base.png")
        var settled: Screenshot?, previous: Screenshot?
        let desktop = (x: 0, y: 40, width: weston.width, height: weston.height - 40)
        #expect(await Tools.eventually {
            guard (try? await weston.screenshot(to: baseFile)) != nil, let now = try? WaylandLaunchFeedbackTests.readPNG(baseFile.path) else { return false }
            defer { previous = now }
            guard let before = previous, before.rgb == now.rgb, Self.colours(now, in: desktop) > 8 else { return false }
            settled = now
            return true
        }, "weston's desktop never settled: \(weston.log.suffix(1500))")
        let base = try #require(settled)
        var env = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "WAYLAND_SOCKET", "GDK_BACKEND"] { env.removeValue(forKey: key) }
        env["XDG_RUNTIME_DIR"] = weston.runtimeDirectory.path
        env["WAYLAND_DISPLAY"] = weston.socket
        for (name, request) in try Self.dialogs(photo: photo) {
            let input = work.appendingPathComponent("\(name).in")
            try Data(request.line).write(to: input)
            let err = work.appendingPathComponent("\(name).err")
            let dialog = try ChildProcess([DialogRun.program], environment: env, stdin: input.path,
                                          stdout: work.appendingPathComponent("\(name).out").path, stderr: err.path)
            // Drawn: a box that differs from the empty desktop, the same in two screenshots in a
            // row (the sheet's: with the photo's colours in it).
            let shot = work.appendingPathComponent("\(name).png")
            var last: Screenshot?
            var box: (x: Int, y: Int, width: Int, height: Int)?
            let drawn = await Tools.eventually {
                guard dialog.isRunning, (try? await weston.screenshot(to: shot)) != nil, let now = try? WaylandLaunchFeedbackTests.readPNG(shot.path),
                      let b = Self.changed(now, from: base), b.width > 200, b.height > 150 else { return false }
                defer { last = now }
                guard let before = last, before.rgb == now.rgb else { return false }
                box = b
                return name != "sheet" || Self.colours(now, in: b) > 600
            }
            #expect(drawn, "\(name) was not drawn on weston: \((try? String(contentsOf: err, encoding: .utf8)) ?? "")\n\(weston.log.suffix(1500))")
            if drawn, let box {
                try await Self.crop(shot, box, to: try DialogRun.screenshotFolder().appendingPathComponent("\(name)-wayland.png"))
            }
            dialog.terminate()
            _ = await dialog.wait()
            // Gone from the output before the next one.
            let gone = await Tools.eventually {
                guard (try? await weston.screenshot(to: shot)) != nil, let now = try? WaylandLaunchFeedbackTests.readPNG(shot.path) else { return false }
                return Self.changed(now, from: base) == nil
            }
            #expect(gone, "\(name) stayed on weston's output after it ended")
        }
    }

    /// A bare session (`env -i` with only what the service hands a dialog): each dialog comes up
    /// on Xvfb, draws, and answers; kept as `NAME-bare.png`.
    @Test func inABareSessionEachDialogComesUpAndAnswers() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-bare-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let photo = try await Self.photo(in: work)
        let titles = ["sheet": "Share from Photos", "chooser": "Open With", "picker": "Insert a Photo"]
        for (name, request) in try Self.dialogs(photo: photo) {
            let s = try DialogRun(request, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], clean: true)
            defer { s.stop() }
            let w = try #require(try await s.window(titled: titles[name] ?? ""), "no \(name) in a bare session\n\(s.log)")
            #expect(try DialogRun.colours(of: w, on: s.x) > 50, "\(name) drew little")
            if name == "sheet" {
                // The thumbnail (the preview square fills with the photo's colours).
                let shown = await s.x.watch { _ in
                    guard let shot = try? s.x.screenshot(x: w.x + 14, y: w.y + 14, width: 96, height: 96) else { return false }
                    return Set(stride(from: 0, to: shot.rgb.count, by: 3).map { UInt32(shot.rgb[$0]) << 16 | UInt32(shot.rgb[$0 + 1]) << 8 | UInt32(shot.rgb[$0 + 2]) }).count > 300
                }
                #expect(shown != nil, "no thumbnail in a bare session\n\(s.log)")
            }
            try await DialogRun.screenshot(w, on: s.x, named: "\(name)-bare")
            try await s.type(["Escape"], into: w)
            #expect(await s.result().answer == DialogAnswer(.cancelled), "\(s.log)")
        }
    }
}
