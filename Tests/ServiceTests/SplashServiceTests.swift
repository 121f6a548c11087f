import CPNG
import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Launch images on a real X server (Xvfb): `OpenURL` through the bus-activated service, the
/// splash helper it spawns, and what a user sees on the screen.
@Suite(.serialized) struct SplashServiceTests {
    /// A solid-coloured RGB PNG of `width`×`height` whose left half is `left`, right half `right`.
    static func png(_ path: String, width: Int, height: Int, left: [UInt8], right: [UInt8]) throws {
        var pixels: [UInt8] = []
        for _ in 0..<height { for x in 0..<width { pixels += (x < width / 2 ? left : right) + [255] } }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
        let written = pixels.withUnsafeBytes { png_image_write_to_file(&image, path, 0, $0.baseAddress, Int32(width * 4), nil) }
        png_image_free(&image)
        if written == 0 { throw ToolError("cannot write \(path)") }
    }

    struct Setup {
        let x: Xvfb
        let f: ServiceFixture
        let images: URL
    }

    /// Xvfb, a service whose session has that display, and a handler `todo` that records its
    /// argv and environment, then runs `then` (a shell command; by default it waits until the
    /// test opens the fixture's gate "todo": ``ServiceFixture/release(_:)``). `config` is the
    /// service's config file, e.g. a splash timeout no test could reach, so that only the
    /// behaviour under test can take the image down.
    static func setUp(scale: String = "", xftDPI: Int? = nil, config: String? = nil, then: ((ServiceFixture) -> String)? = nil) throws -> Setup {
        let x = try Xvfb(width: 640, height: 480)
        if let xftDPI { try x.setResources("Xft.antialias:\t1\nXft.dpi:\t\(xftDPI)\n") }
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "GDK_SCALE": scale, "QT_SCALE_FACTOR": ""])
        if let config { try f.writeConfig(config) }
        let recorder = try f.recorder("todo")
        let handler = f.bin.appendingPathComponent("todo-app").path
        try "#!/bin/sh\n\(recorder) \"$@\"\n\(then?(f) ?? f.gate.shellWait("todo"))\n".write(toFile: handler, atomically: true, encoding: .utf8)
        chmod(handler, 0o755)
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(handler) %u\nMimeType=x-scheme-handler/todolist;")
        let images = f.dataHome.appendingPathComponent("launch-images/org.example.Todo")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try png(images.appendingPathComponent("Default-todolist.png").path, width: 120, height: 80, left: [200, 30, 40], right: [20, 60, 220])
        try png(images.appendingPathComponent("Default-todolist@2x.png").path, width: 240, height: 160, left: [30, 200, 90], right: [250, 250, 250])
        return Setup(x: x, f: f, images: images)
    }

    /// A splash that only the behaviour under test can take down: no timeout within any run.
    static let noTimeout = "[LaunchImages]\nTimeout=600000\n"

    /// Whether `shot` shows the two-colour image of `width`×`height` centred, every pixel exact.
    static func showsCentred(_ shot: Screenshot, width: Int, height: Int, left: [UInt8], right: [UInt8]) -> Bool {
        guard let box = shot.boundingBox(), box.width == width, box.height == height,
              box.x == (shot.width - width) / 2, box.y == (shot.height - height) / 2 else { return false }
        for y in box.y..<(box.y + height) {
            for x in box.x..<(box.x + width) where shot.pixel(x, y) != (x - box.x < width / 2 ? left : right) { return false }
        }
        return true
    }

    /// Waits until the service runs no launch-image helper (they all took their splash down).
    static func noSplashHelperLeft(_ f: ServiceFixture) async -> Bool {
        await Tools.eventually { await f.splashHelpers().isEmpty }
    }

    @Test func openURLShowsTheImageCentredPixelForPixelUntilTheHandlerExits() async throws {
        let s = try Self.setUp(config: Self.noTimeout)
        defer { s.f.stop(); s.x.stop() }
        let started = ContinuousClock.now
        let r = try await s.f.gdbus("OpenURLWithOptions", "todolist://add?task=milk", "{}")
        let replied = ContinuousClock.now - started
        let expected = s.images.appendingPathComponent("Default-todolist.png").path
        #expect(r.status == 0 && r.stdout.contains("'launch-image': <'\(expected)'>"), "\(r.stdout)\(r.stderr)")
        let shown = await s.x.watch {
            Self.showsCentred($0, width: 120, height: 80, left: [200, 30, 40], right: [20, 60, 220])
        }
        #expect(shown != nil, "the launch image never appeared centred and exact")
        print("splash: OpenURL replied after \(replied) (bus activation included); image on screen \(shown.map { "\($0)" } ?? "never") after the reply (show delay 150 ms)")
        #expect(await s.f.recordedArgv("todo") == ["todolist://add?task=milk"])
        #expect(s.f.recordedEnv("todo").contains("startup=schemebridge-"), "the handler gets the splash's startup id: \(s.f.recordedEnv("todo"))")
        // The image stays while the handler runs (it is still up now), and goes when it exits.
        #expect(try Self.showsCentred(s.x.screenshot(), width: 120, height: 80, left: [200, 30, 40], right: [20, 60, 220]))
        s.f.release("todo")
        let gone = await s.x.watch { $0.boundingBox() == nil }
        #expect(gone != nil, "the splash stayed after the handler exited")
        #expect(await Self.noSplashHelperLeft(s.f))
        #expect(try s.x.topLevelWindows().filter { $0.resClass.lowercased().contains("schemebridge") && $0.isMapped }.isEmpty)
    }

    @Test func gdkScaleTwoShowsTheAt2xFile() async throws {
        let s = try Self.setUp(scale: "2", config: Self.noTimeout)
        defer { s.f.stop(); s.x.stop() }
        let r = try await s.f.dbusSend("OpenURL", "string:todolist://x")
        #expect(r.stdout.contains("boolean true"), "\(r.stderr)")
        let shown = await s.x.watch {
            Self.showsCentred($0, width: 240, height: 160, left: [30, 200, 90], right: [250, 250, 250])
        }
        #expect(shown != nil, "the @2x image never appeared")
    }

    @Test func xftDPIOf192ChoosesTheAt2xFile() async throws {
        let s = try Self.setUp(xftDPI: 192)
        defer { s.f.stop(); s.x.stop() }
        let expected = s.images.appendingPathComponent("Default-todolist@2x.png").path
        let probe = try await Tools.run([try Built.executable("schemebridge-splash"), "--print-xft-dpi"], environment: s.x.clientEnvironment)
        #expect(probe.status == 0 && probe.stdout == "192.0\n", "\(probe.status) \(probe.stdout)\(probe.stderr)")
        // The service learns Xft.dpi from the helper in the background, just after it starts.
        #expect(await Tools.eventually {
            (try? await s.f.dbusSend("LaunchImageForURL", "string:todolist://x"))?.stdout.contains(expected) == true
        }, "Xft.dpi 192 should select the @2x image")
    }

    @Test func aFastHandlerNeverShowsIt() async throws {
        // A handler that exits at once, against a show delay longer than any run: the helper must
        // go with the handler, never having shown the image.
        let s = try Self.setUp(config: "[LaunchImages]\nShowDelay=600000\nTimeout=600000\n", then: { _ in "exit 0" })
        defer { s.f.stop(); s.x.stop() }
        let r = try await s.f.dbusSend("OpenURL", "string:todolist://fast")
        #expect(r.stdout.contains("boolean true"), "\(r.stderr)")
        #expect(await s.f.recordedArgv("todo") == ["todolist://fast"])
        #expect(s.f.recordedEnv("todo").contains("startup=schemebridge-"), "a splash was planned: \(s.f.recordedEnv("todo"))")
        #expect(await Self.noSplashHelperLeft(s.f), "the helper stayed after its handler exited")
        #expect(try s.x.screenshot().boundingBox() == nil)
        #expect(try s.x.topLevelWindows().filter { $0.resClass.lowercased().contains("schemebridge") }.isEmpty)
    }

    @Test func launchImageOffPerCallShowsNothing() async throws {
        let s = try Self.setUp()
        defer { s.f.stop(); s.x.stop() }
        let r = try await s.f.gdbus("OpenURLWithOptions", "todolist://off", "{'launch-image': <false>}")
        #expect(r.status == 0 && r.stdout.contains("'launch-image': <''>"), "\(r.stdout)\(r.stderr)")
        // The helper would have been started before the reply: there is none.
        #expect(await s.f.splashHelpers().isEmpty)
        #expect(await s.f.recordedArgv("todo") == ["todolist://off"])
        #expect(s.f.recordedEnv("todo").contains("startup=\n"), "\(s.f.recordedEnv("todo"))")
        #expect(try s.x.screenshot().boundingBox() == nil)
    }

    @Test func aFailedActivationTakesItDownAtOnce() async throws {
        // No timeout within the run: only the service's take-down can end the splash.
        let s = try Self.setUp(config: "[LaunchImages]\nShowDelay=0\nTimeout=600000\n", then: { _ in "exit 0" })
        defer { s.f.stop(); s.x.stop() }
        // A D-Bus activatable handler that is not there: the splash goes up before the Open call.
        try s.f.entry("org.example.Gone.desktop", "Name=Gone\nDBusActivatable=true\nMimeType=x-scheme-handler/gone;")
        let images = s.f.dataHome.appendingPathComponent("launch-images/org.example.Gone")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try Self.png(images.appendingPathComponent("Default.png").path, width: 120, height: 80, left: [200, 30, 40], right: [20, 60, 220])
        let r = try await s.f.dbusSend("OpenURL", "string:gone://x")
        #expect(r.stderr.contains(ContractError.launchFailed.description), "\(r.stdout)\(r.stderr)")
        #expect(await Self.noSplashHelperLeft(s.f), "the launch image of a failed activation must not stay up")
        #expect(await s.x.watch { $0.boundingBox() == nil } != nil, "something stayed on screen")
    }

    @Test func theHandlersWindowTakesItDown() async throws {
        let window = try Built.executable("splash-test-window")
        // The app maps its window (with its own _NET_WM_PID) when the test opens gate "window",
        // once the splash is up, and stays until gate "exit".
        let s = try Self.setUp(config: Self.noTimeout, then: { f in
            "exec \(window) --map-when '\(f.gate.file("window"))' --geometry 50x40+0+0 --color 00FF00 --exit-when '\(f.gate.file("exit"))'"
        })
        defer { s.f.release("exit"); s.f.stop(); s.x.stop() }
        let r = try await s.f.dbusSend("OpenURL", "string:todolist://window")
        #expect(r.stdout.contains("boolean true"), "\(r.stderr)")
        let shown = await s.x.watch {
            Self.showsCentred($0, width: 120, height: 80, left: [200, 30, 40], right: [20, 60, 220])
        }
        #expect(shown != nil)
        s.f.release("window")
        // Once the app's window is up, the splash goes (while the app runs on).
        let windowUp = await s.x.watch { $0.pixel(10, 10) == [0, 255, 0] }
        #expect(windowUp != nil, "the test app's window never appeared")
        let splashGone = await s.x.watch { $0.pixel(320, 240) == [0, 0, 0] }
        #expect(splashGone != nil, "the splash stayed after the app's window appeared")
        #expect(await Self.noSplashHelperLeft(s.f))
        print("splash: gone \(splashGone.map { "\($0)" } ?? "never") after the app's window was seen")
    }
}
