import CPNG
import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Launch feedback under a real Wayland compositor (issue 26, item 5): weston's headless backend
/// with Xwayland, started by the test. With Xwayland the splash shows as an X11 window the
/// compositor composites, and goes when the app's window maps; without it (`DISPLAY` unset) the
/// notification fallback is used, and nothing X-only crashes or hangs.
@Suite struct WaylandLaunchFeedbackTests {
    static let left: [UInt8] = [200, 30, 40], right: [UInt8] = [20, 60, 220]

    /// A service whose session is `environment`, the handler `org.example.Todo` running
    /// `handler` (shell; after recording its argv and environment) and its 120×80 two-colour
    /// launch image. Returns the image's path.
    static func setUp(_ environment: [String: String], unset: [String] = [], handler: (ServiceFixture) -> String) throws -> (ServiceFixture, String) {
        let f = try ServiceFixture(extraEnvironment: environment.merging(["GDK_SCALE": "", "QT_SCALE_FACTOR": ""]) { a, _ in a },
                                   unsetEnvironment: unset)
        try f.writeConfig(SplashServiceTests.noTimeout)
        let recorder = try f.recorder("todo")
        let program = f.bin.appendingPathComponent("todo-app").path
        try "#!/bin/sh\n\(recorder) \"$@\"\n\(handler(f))\n".write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(program) %u\nMimeType=x-scheme-handler/todolist;")
        let images = f.dataHome.appendingPathComponent("launch-images/org.example.Todo")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let image = images.appendingPathComponent("Default.png").path
        try SplashServiceTests.png(image, width: 120, height: 80, left: left, right: right)
        return (f, image)
    }

    /// The RGB pixels of a PNG file (what a screenshot shows).
    static func readPNG(_ path: String) throws -> Screenshot {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&image, path) != 0 else { throw ToolError("cannot read \(path)") }
        image.format = UInt32(PNG_FORMAT_RGB)
        var rgb = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 3)
        let ok = rgb.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        png_image_free(&image)
        guard ok != 0 else { throw ToolError("cannot decode \(path)") }
        return Screenshot(width: Int(image.width), height: Int(image.height), rgb: rgb)
    }

    /// How many pixels of `shot` are exactly `colour`.
    static func count(_ colour: [UInt8], in shot: Screenshot) -> Int {
        var n = 0
        for y in 0..<shot.height { for x in 0..<shot.width where shot.pixel(x, y) == colour { n += 1 } }
        return n
    }

    /// Where screenshots are kept for a person to look at (`.build/test-artifacts/`).
    static func artifact(_ name: String) throws -> URL {
        let dir = Built.packageRoot.appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name)
    }

    @Test func theSplashShowsThroughXwaylandAndGoesWhenTheAppsWindowMaps() async throws {
        let weston = try Weston(width: 800, height: 600)
        defer { weston.stop() }
        let window = try Built.executable("splash-test-window")
        // The app (an X11 client through Xwayland) maps its window when the test opens gate
        // "window", once the splash is up, and stays until gate "exit".
        let (f, image) = try Self.setUp(weston.clientEnvironment) { f in
            "exec \(window) --map-when '\(f.gate.file("window"))' --geometry 50x40+0+0 --color 00FF00 --exit-when '\(f.gate.file("exit"))'"
        }
        defer { f.release("exit"); f.stop() }
        let r = try await f.gdbus("OpenURLWithOptions", "todolist://wayland", "{}")
        // Which feedback: the splash through Xwayland (the notification fallback would name the
        // image too, but start no helper and map no window).
        #expect(r.status == 0 && r.stdout.contains("'launch-image': <'\(image)'>"), "\(r.stdout)\(r.stderr)")
        #expect(await !f.splashHelpers().isEmpty, "no splash helper was started under Xwayland")
        var splash: TopLevelWindow?
        #expect(await Tools.eventually {
            splash = try? weston.xWindows(classContaining: "schemebridge").first { $0.width == 120 && $0.height == 80 }
            return splash != nil
        }, "the splash window never mapped on Xwayland\n\(weston.log.suffix(2000))")
        let shown = try #require(splash)
        // Its own pixels (`xwd -id`): the image, exact.
        let pixels = try weston.xWindowImage(shown)
        #expect(Self.count(Self.left, in: pixels) == 60 * 80 && Self.count(Self.right, in: pixels) == 60 * 80,
                "the splash window does not hold the image: \(pixels.pixel(10, 10)) \(pixels.pixel(100, 10))")
        // What the compositor shows: the whole image on its output.
        let screen = try Self.artifact("wayland-splash-screen.png")
        var composited = false
        _ = await Tools.eventually {
            guard (try? await weston.screenshot(to: screen)) != nil, let shot = try? Self.readPNG(screen.path) else { return false }
            composited = Self.count(Self.left, in: shot) >= 60 * 80 && Self.count(Self.right, in: shot) >= 60 * 80
            return composited
        }
        #expect(composited, "weston's output never showed the launch image (screenshot: \(screen.path))")
        if composited, let shot = try? Self.readPNG(screen.path) {
            // Centred on the output: the image's left half left of the middle, its right half right of it.
            let (cx, cy) = (shot.width / 2, shot.height / 2)
            #expect(shot.pixel(cx - 30, cy) == Self.left && shot.pixel(cx + 30, cy) == Self.right
                    && shot.pixel(cx - 61, cy) != Self.left && shot.pixel(cx + 61, cy) != Self.right, "not centred (\(screen.path))")
        }
        print("wayland: splash \(shown.width)x\(shown.height) window \(shown.id) at \(shown.x),\(shown.y) on Xwayland \(weston.display); screenshot \(screen.path)")
        // The app's window maps: the splash goes, while the app runs on.
        f.release("window")
        #expect(await Tools.eventually { ((try? weston.xWindows(classContaining: "splash-test-window")) ?? []).isEmpty == false },
                "the app's window never mapped")
        #expect(await Tools.eventually { ((try? weston.xWindows(classContaining: "schemebridge")) ?? [shown]).isEmpty },
                "the splash stayed after the app's window mapped")
        #expect(await SplashServiceTests.noSplashHelperLeft(f))
        #expect(await f.recordedArgv("todo") == ["todolist://wayland"])
    }

    /// `DISPLAY` unset (not merely empty), `WAYLAND_DISPLAY` set: the splash helper (an X11 client) is not started;
    /// the notification fallback is used when a notification server is there, else nothing is
    /// shown — and the open is served at once either way.
    @Test func withoutXwaylandTheNotificationFallbackIsUsedAndNothingHangs() async throws {
        let weston = try Weston(width: 640, height: 480)
        defer { weston.stop() }
        let (f, image) = try Self.setUp(["WAYLAND_DISPLAY": weston.socket, "XDG_RUNTIME_DIR": weston.runtimeDirectory.path], unset: ["DISPLAY"]) { _ in
            "exit 0"
        }
        defer { f.stop() }
        let r = try await f.gdbus("OpenURLWithOptions", "todolist://first", "{}")
        #expect(r.status == 0 && r.stdout.contains("'launch-image': <''>"), "no notification server, nothing shown: \(r.stdout)\(r.stderr)")
        #expect(await f.recordedArgv("todo") == ["todolist://first"])
        #expect(f.recordedEnv("todo").contains("startup=\n"), "no splash, so no startup id is invented: \(f.recordedEnv("todo"))")
        #expect(await f.splashHelpers().isEmpty)
        let service = try #require(await f.servicePID())
        #expect(ActivationTokenTests.environment(of: service, ["DISPLAY", "WAYLAND_DISPLAY"]) == ["WAYLAND_DISPLAY": weston.socket],
                "the service runs with WAYLAND_DISPLAY and without DISPLAY")
        // With a notification server the image goes in a notification.
        let log = f.root.appendingPathComponent("notify.log")
        let server = try await LaunchImageServiceTests.notificationServer(f, log: log)
        defer { server.signal(SIGTERM) }
        let notified = try await f.gdbus("OpenURLWithOptions", "todolist://second", "{}")
        #expect(notified.status == 0 && notified.stdout.contains("'launch-image': <'\(image)'>"), "\(notified.stdout)\(notified.stderr)")
        #expect(await Tools.eventually { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("\"image\": \"\(image)\"") },
                "no notification carried the image")
        #expect(await f.splashHelpers().isEmpty, "a splash helper was started without an X display")
        // The service is still there, and says which image it would show.
        let query = try await f.dbusSend("LaunchImageForURL", "string:todolist://x")
        #expect(query.stdout.contains(image), "\(query.stdout)\(query.stderr)")
        #expect(weston.log.contains("listening on display"), "weston ran throughout")
    }
}
