import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The shipped dialog program (`scripts/schemebridge-dialog`, from the source tree) on a private
/// Xvfb, run as the service runs it: one ``DialogRequest`` line on stdin, one ``DialogAnswer``
/// line read from stdout. Real key presses and clicks (xdotool) answer it.
struct DialogRun {
    let x: Xvfb
    let process: ChildProcess
    let out: URL
    let xdotool: String

    static var program: String { Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path }

    init(_ request: DialogRequest, environment extra: [String: String] = [:], clean: Bool = false) throws {
        try self.init(line: String(decoding: request.line, as: UTF8.self), environment: extra, clean: clean)
    }

    /// `clean`: only DISPLAY, HOME and `environment` (as `env -i` would leave a session: no LANG).
    init(line: String, environment extra: [String: String] = [:], clean: Bool = false) throws {
        xdotool = try Tools.path(of: "xdotool")
        x = try Xvfb(width: 800, height: 600)
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-dialog-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let input = dir.appendingPathComponent("in")
        out = dir.appendingPathComponent("out")
        try Data(line.utf8).write(to: input)
        // A clean session's home: a folder of the dialog's own, removed with it.
        let home = dir.appendingPathComponent("home")
        if clean { try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true) }
        var env = clean ? ["HOME": home.path] : ProcessInfo.processInfo.environment
        env["DISPLAY"] = x.display
        env["WAYLAND_DISPLAY"] = nil
        for (k, v) in extra { env[k] = v }
        process = try ChildProcess([Self.program], environment: env, stdin: input.path, stdout: out.path, stderr: dir.appendingPathComponent("err").path)
    }

    func stop() {
        process.terminate()
        x.stop()
        try? FileManager.default.removeItem(at: out.deletingLastPathComponent())
    }

    /// The dialog's window once it is mapped and drawn, found by its title.
    func window(titled title: String) async throws -> TopLevelWindow? {
        try await DialogRun.window(on: x, titled: title, while: { process.isRunning })
    }

    /// A window titled `title` on `x`, mapped and drawn (most of its area no longer the black root).
    static func window(on x: Xvfb, titled title: String, while running: @escaping @Sendable () -> Bool = { true }) async throws -> TopLevelWindow? {
        let xdotool = try Tools.path(of: "xdotool")
        var found: UInt?
        _ = try await Tools.eventually {
            let run = try await Tools.run([xdotool, "search", "--onlyvisible", "--name", "^\(NSRegularExpression.escapedPattern(for: title))$"],
                                          environment: ["DISPLAY": x.display], timeout: Tools.eventCeiling)
            found = run.stdout.split(separator: "\n").first.flatMap { UInt($0) }
            return found != nil || !running()
        }
        guard let id = found else { return nil }
        var window: TopLevelWindow?
        _ = await Tools.eventually {
            window = try? x.topLevelWindows().first { $0.id == id && $0.isMapped && $0.width > 200 && $0.height > 150 }
            return window != nil
        }
        guard let w = window else { return nil }
        let drawn = await x.watch { shot in shot.boundingBox().map { $0.width >= w.width * 3 / 4 && $0.height >= w.height * 3 / 4 } ?? false }
        return drawn == nil ? nil : w
    }

    /// Focuses `window` and types `keys` (xdotool key names).
    func type(_ keys: [String], into window: TopLevelWindow) async throws {
        try await DialogRun.type(keys, into: window, on: x)
    }

    static func type(_ keys: [String], into window: TopLevelWindow, on x: Xvfb) async throws {
        let xdotool = try Tools.path(of: "xdotool")
        let env = ["DISPLAY": x.display]
        #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(window.id)], environment: env).status == 0)
        #expect(try await Tools.run([xdotool, "key", "--delay", "100"] + keys, environment: env).status == 0)
    }

    /// The exit status and the answer (nil when what it printed is no answer), once it has exited.
    func result() async -> (status: Int32, answer: DialogAnswer?) {
        let status = await process.wait()
        let output = (try? Data(contentsOf: out)).map(Array.init) ?? []
        return (status, try? DialogAnswer(output: output))
    }

    /// Waits for the dialog, types `keys` into it and returns how it ended.
    func answer(after keys: [String], title: String) async throws -> (status: Int32, answer: DialogAnswer?) {
        let w = try #require(try await window(titled: title), "no dialog came up\n\(log)")
        try await type(keys, into: w)
        return await result()
    }

    var log: String { (try? String(contentsOf: out.deletingLastPathComponent().appendingPathComponent("err"), encoding: .utf8)) ?? "" }

    /// Where screenshots go: `$SCHEMEBRIDGE_SCREENSHOTS` (docs/images when refreshing the pictures
    /// of the docs), else `.build/test-artifacts/screenshots`, kept for a person to look at (not
    /// in the temporary folder, which the tests leave empty).
    static func screenshotFolder() throws -> URL {
        let dir = ProcessInfo.processInfo.environment["SCHEMEBRIDGE_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? Built.packageRoot.appendingPathComponent(".build/test-artifacts/screenshots")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Saves `window` of `x` as `name`.png in ``screenshotFolder()``; returns the file.
    @discardableResult
    static func screenshot(_ window: TopLevelWindow, on x: Xvfb, named name: String) async throws -> URL {
        let file = try screenshotFolder().appendingPathComponent(name + ".png")
        let r = try await Tools.run([Tools.systemPython, Built.packageRoot.appendingPathComponent("scripts/x11-screenshot.py").path, file.path, String(window.id)],
                                    environment: ["DISPLAY": x.display])
        #expect(r.status == 0, "\(r.stderr)")
        return file
    }

    /// How many colours a window shows (a drawn dialog has icons and text: many).
    static func colours(of window: TopLevelWindow, on x: Xvfb) throws -> Int {
        let shot = try x.screenshot(x: window.x, y: window.y, width: window.width, height: window.height)
        var colours = Set<UInt32>()
        for i in stride(from: 0, to: shot.rgb.count, by: 3) {
            colours.insert(UInt32(shot.rgb[i]) << 16 | UInt32(shot.rgb[i + 1]) << 8 | UInt32(shot.rgb[i + 2]))
        }
        return colours.count
    }

    /// A `width`×`height` picture (a gradient with a disc) written by GdkPixbuf as PNG or JPEG (by
    /// `path`'s extension).
    static func makePicture(_ path: String, width: Int, height: Int) async throws {
        // A 64×48 picture drawn pixel by pixel, scaled up by GdkPixbuf (a 12-megapixel one by hand takes python a minute).
        let script = """
            import sys, gi
            gi.require_version("GdkPixbuf", "2.0")
            from gi.repository import GdkPixbuf, GLib
            path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
            sw, sh = 64, 48
            data = bytearray(sw * sh * 3)
            for y in range(sh):
                for x in range(sw):
                    i = (y * sw + x) * 3
                    inside = (x - sw // 2) ** 2 + (y - sh // 2) ** 2 < (sh // 4) ** 2
                    data[i:i + 3] = bytes((x * 255 // sw, y * 255 // sh, 230 if inside else 60))
            small = GdkPixbuf.Pixbuf.new_from_bytes(GLib.Bytes.new(bytes(data)), GdkPixbuf.Colorspace.RGB, False, 8, sw, sh, sw * 3)
            pb = small.scale_simple(w, h, GdkPixbuf.InterpType.BILINEAR)
            pb.savev(path, "jpeg" if path.endswith(".jpg") else "png", [], [])
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, path, String(width), String(height)])
        guard r.status == 0 else { throw ToolError("cannot make \(path): \(r.stderr)") }
    }
}

extension DialogAnswer {
    /// The pick without its `activation-token` (the fresh token the dialog obtained for the
    /// launch: ``DialogLaunchTokenTests`` and the sheet tests check it), to compare picks.
    var pick: DialogAnswer {
        var answer = self
        answer.activationToken = nil
        return answer
    }
}
