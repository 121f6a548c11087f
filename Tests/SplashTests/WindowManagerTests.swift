import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// Under a reparenting window manager: a managed splash window with the EWMH/Motif hints, and
    /// handler windows found inside their frames.
    @Suite struct WindowManager {
        @Test func managedSplashHasHintsAndIsTakenDownWhenTheFramedClientMaps() async throws {
            let f = try SplashFixture()
            let wm = try MiniWindowManager(f.xvfb)
            defer { wm.stop() }
            // Created before the helper starts, mapped (and framed) once the splash is managed.
            let handler = try f.startWindow(["--map-when", f.gate.file("map"), "--wm-class", "FramedApp"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "300",
                                            "--timeout-ms", "60000", "--pid", "\(handler.process.pid)"])
            try #require(await Tools.eventually { wm.managed(ofClass: "schemebridge-splash") != nil }, "\(helper.log)")
            f.gate.release("map")
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("window manager: yes"), "\(helper.log)")
            let splash = try #require(wm.managed(ofClass: "schemebridge-splash"), "the splash was not managed: \(helper.log)")
            #expect(splash.windowTypes == ["_NET_WM_WINDOW_TYPE_SPLASH"])
            #expect(splash.states.contains("_NET_WM_STATE_ABOVE"))
            #expect(splash.motifHints.prefix(3) == [2, 0, 0])
            #expect(splash.pid == Int(helper.process.pid))
            let app = try #require(wm.managed(ofClass: "FramedApp"))
            let gone = try #require(wm.goneAt(splash.client))
            let delay = gone - max(app.framedAt, splash.framedAt + 300)
            print("MEASURE take-down after a framed FramedApp window mapped: \(String(format: "%.1f", delay)) ms")
            #expect(helper.log.contains("taken down: window") && helper.log.contains("_NET_WM_PID \(handler.process.pid)"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func framedWindowWithTheWMClassCounts() async throws {
            let f = try SplashFixture()
            let wm = try MiniWindowManager(f.xvfb)
            defer { wm.stop() }
            let sleeper = try f.start(["/bin/sleep", "600"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--wm-class", "framedclass"])
            try #require(await Tools.eventually { wm.managed(ofClass: "schemebridge-splash") != nil }, "\(helper.log)")
            _ = try f.startWindow(["--pid", "none", "--wm-class", "FramedClass"])
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("taken down: window") && helper.log.contains("WM_CLASS FramedClass"), "\(helper.log)")
        }
    }
}
