import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// When the launch image goes: the handler's window, its exit, startup notification, the timeout.
    @Suite struct Takedown {
        static let minShow = 300.0

        /// Starts a handler window that maps after `delayMs` (long enough for the splash to be shown
        /// and its minimum time to pass), the helper with `helperArguments` (given the handler's pid),
        /// and returns the time from the handler's map (or the end of the minimum show time, if later)
        /// to the splash leaving the screen.
        func takedownDelay(window windowArguments: [String], helper helperArguments: (Int32) -> [String],
                           windowClass: String, fixture f: SplashFixture) async throws -> (ms: Double, log: String) {
            let handler = try f.startWindow(windowArguments + ["--wm-class", windowClass])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0",
                                            "--min-show-ms", "\(Int(Self.minShow))", "--timeout-ms", "60000"] + helperArguments(handler.process.pid))
            let shown = await Tools.eventually(timeout: .seconds(20)) { f.recorder.splashMap != nil }
            try #require(shown, "splash never mapped: \(helper.log)")
            let mapped = await Tools.eventually(timeout: .seconds(30)) { f.recorder.firstMap(ofClass: windowClass) != nil }
            try #require(mapped, "handler window never mapped")
            #expect(await f.exitStatus(of: helper) == 0, "\(helper.log)")
            let splash = try #require(f.recorder.splashMap)
            let handlerMap = try #require(f.recorder.firstMap(ofClass: windowClass))
            let gone = try #require(f.recorder.firstGone(splash.window), "splash never left the screen")
            #expect(try f.splashWindows().isEmpty)
            #expect(gone.time >= splash.time + Self.minShow - 1, "shown only \(gone.time - splash.time) ms")
            let delay = gone.time - max(handlerMap.time, splash.time + Self.minShow)
            print("MEASURE take-down after a \(windowClass) window mapped: \(String(format: "%.1f", delay)) ms")
            return (delay, helper.log)
        }

        @Test func windowWithTheHandlersPIDTakesItDownWithin100ms() async throws {
            let f = try SplashFixture()
            let (delay, log) = try await takedownDelay(window: ["--delay-ms", "1500"], helper: { ["--pid", "\($0)"] },
                                                        windowClass: "PidApp", fixture: f)
            #expect(delay < 100, "taken down \(delay) ms after the handler's window was mapped")
            #expect(log.contains("_NET_WM_PID"), "\(log)")
        }

        @Test func windowWithTheStartupIDTakesItDownWithin100ms() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "60"])
            let (delay, log) = try await takedownDelay(window: ["--delay-ms", "1500", "--pid", "none", "--startup-id", "sb-test-42_TIME0"],
                                                        helper: { _ in ["--pid", "\(sleeper.pid)", "--startup-id", "sb-test-42_TIME0"] },
                                                        windowClass: "SnApp", fixture: f)
            #expect(delay < 100, "taken down \(delay) ms after the handler's window was mapped")
            #expect(log.contains("_NET_STARTUP_ID sb-test-42_TIME0"), "\(log)")
        }

        @Test func newWindowWithTheWMClassTakesItDownWithin100ms() async throws {
            let f = try SplashFixture()
            let (delay, log) = try await takedownDelay(window: ["--delay-ms", "1500", "--pid", "none"],
                                                        helper: { _ in ["--wm-class", "org.example.todo"] },
                                                        windowClass: "org.example.Todo", fixture: f)
            #expect(delay < 100, "taken down \(delay) ms after the handler's window was mapped")
            #expect(log.contains("WM_CLASS"), "\(log)")
        }

        @Test func windowOfADescendantOfTheHandlerCounts() async throws {
            let f = try SplashFixture()
            // sh forks the window program (no exec: a command follows), so the window's _NET_WM_PID is sh's child.
            let exe = try Built.executable("splash-test-window")
            let shell = try f.start(["/bin/sh", "-c", "'\(exe)' --delay-ms 1200 --wm-class KidApp; true"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(shell.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let kid = try #require(f.recorder.firstMap(ofClass: "KidApp"))
            let gone = try #require(f.recorder.firstGone(splash.window))
            #expect(gone.time - kid.time < 100)
            #expect(helper.log.contains("_NET_WM_PID"), "\(helper.log)")
        }

        @Test func propertiesSetJustAfterMappingAreSeen() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "60"])
            let window = try f.startWindow(["--delay-ms", "800", "--pid", "none", "--startup-id", "late-id", "--properties-after-map", "700",
                                            "--wm-class", "LateApp"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--startup-id", "late-id"])
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let lateMap = try #require(f.recorder.firstMap(ofClass: ""), "no class-less map")
            let gone = try #require(f.recorder.firstGone(splash.window))
            // Mapped without properties, it did not count; 700 ms later its _NET_STARTUP_ID did.
            #expect(gone.time - lateMap.time >= 600, "taken down \(gone.time - lateMap.time) ms after the map")
            #expect(helper.log.contains("_NET_STARTUP_ID late-id"), "\(helper.log)")
            _ = window
        }

        @Test func windowAlreadyThereAtStartMeansItIsNeverShown() async throws {
            let f = try SplashFixture()
            let handler = try f.startWindow(["--wm-class", "EarlyApp"])
            try #require(await Tools.eventually(timeout: .seconds(20)) { f.recorder.firstMap(ofClass: "EarlyApp") != nil })
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "2000", "--timeout-ms", "60000",
                                            "--pid", "\(handler.process.pid)"])
            #expect(await f.exitStatus(of: helper, timeout: .seconds(20)) == 0)
            #expect(f.recorder.splashMap == nil, "the splash was shown")
            #expect(helper.log.contains("never shown: window"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func fastHandlerMapsWithinTheShowDelaySoItIsNeverShown() async throws {
            let f = try SplashFixture()
            let handler = try f.startWindow(["--wm-class", "FastApp"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "3000", "--timeout-ms", "60000",
                                            "--pid", "\(handler.process.pid)"])
            // Watch the screen for the whole time: the splash's colours never appear.
            var sawSplash = false
            while helper.process.isRunning {
                let shot = try f.xvfb.screenshot()
                if shot.pixel(320, 240) == [30, 144, 255] || shot.pixel(320, 240) == [255, 215, 0] { sawSplash = true }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(helper.process.exitStatus == 0)
            #expect(!sawSplash)
            #expect(f.recorder.splashMap == nil, "the splash was mapped")
            #expect(f.recorder.firstMap(ofClass: "FastApp") != nil)
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func windowOfAnotherInstanceWithTheSameWMClassDoesNotCount() async throws {
            let f = try SplashFixture()
            // Another window of the app is open before the launch; only a new one counts.
            _ = try f.startWindow(["--pid", "none", "--wm-class", "Todo"])
            try #require(await Tools.eventually(timeout: .seconds(20)) { f.recorder.firstMap(ofClass: "Todo") != nil })
            let sleeper = try f.start(["/bin/sleep", "60"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--wm-class", "todo"])
            try #require(await Tools.eventually(timeout: .seconds(20)) { f.recorder.splashMap != nil }, "\(helper.log)")
            try await Task.sleep(for: .milliseconds(700))
            #expect(helper.process.isRunning, "taken down by the old window: \(helper.log)")
            _ = try f.startWindow(["--pid", "none", "--wm-class", "Todo", "--geometry", "50x50+500+400"])
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("WM_CLASS Todo.Todo"), "\(helper.log)")
        }

        @Test func handlerExitingTakesItDown() async throws {
            let f = try SplashFixture()
            let handler = try f.start(["/bin/sleep", "3"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(handler.pid)", "--startup-id", "exit-id"])
            try #require(await Tools.eventually(timeout: .seconds(20)) { f.recorder.splashMap != nil }, "\(helper.log)")
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("handler \(handler.pid) exited"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
            // The helper ended the launch sequence on the app's behalf.
            #expect(await Tools.eventually { f.recorder.messages.contains(#"remove: ID="exit-id""#) }, "\(f.recorder.messages)")
        }

        @Test func handlerThatIsNotRunningMeansNeverShown() async throws {
            let f = try SplashFixture()
            let gone = try f.start(["/bin/true"])
            _ = await gone.wait()
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "500", "--pid", "\(gone.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(f.recorder.splashMap == nil)
        }

        @Test func timeoutTakesItDown() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "60"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "1000", "--pid", "\(sleeper.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let gone = try #require(f.recorder.firstGone(splash.window))
            #expect(gone.time - helper.startedAt >= 950)
            #expect(helper.log.contains("taken down: timeout"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func startupNotificationRemoveTakesItDown() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "60"])
            let id = "org.example.Todo-1234-host-todo_TIME567"
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--startup-id", id, "--name", "Todo \"List\"",
                                            "--wm-class", "Todo"])
            try #require(await Tools.eventually(timeout: .seconds(20)) { f.recorder.splashMap != nil }, "\(helper.log)")
            // The helper announced the launch on the service's behalf.
            let announced = await Tools.eventually { f.recorder.messages.contains { $0.hasPrefix("new:") } }
            #expect(announced)
            let new = f.recorder.messages.first { $0.hasPrefix("new:") } ?? ""
            #expect(new.contains(#"ID="\#(id)""#) && new.contains(#"NAME="Todo \"List\"""#) && new.contains(#"SCREEN="0""#), "\(new)")

            try await Task.sleep(for: .milliseconds(300))
            #expect(helper.process.isRunning)
            try f.sendStartupMessage(#"remove: ID="other-id""#)   // someone else's launch
            try await Task.sleep(for: .milliseconds(300))
            #expect(helper.process.isRunning, "taken down by another id's remove: \(helper.log)")
            try f.sendStartupMessage(#"remove: ID="\#(id)""#)
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("startup notification remove:"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
            // The app said it is done: the helper does not send a second remove.
            #expect(f.recorder.messages.filter { $0.contains(id) && $0.hasPrefix("remove:") }.count == 1)
        }

        @Test func minimumShowTimeIsKeptEvenWhenTheAppIsUpAtOnce() async throws {
            let f = try SplashFixture()
            let handler = try f.startWindow(["--delay-ms", "400", "--wm-class", "QuickApp"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "2000",
                                            "--timeout-ms", "60000", "--pid", "\(handler.process.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let gone = try #require(f.recorder.firstGone(splash.window))
            #expect(gone.time - splash.time >= 1990, "shown \(gone.time - splash.time) ms")
            #expect(gone.time - splash.time < 2600, "shown \(gone.time - splash.time) ms")
        }

        @Test func sigtermTakesItDownCleanly() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "60"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "5000",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)"])
            try #require(await Tools.eventually(timeout: .seconds(20)) { f.recorder.splashMap != nil }, "\(helper.log)")
            helper.process.signal(SIGTERM)
            #expect(await f.exitStatus(of: helper, timeout: .seconds(2)) == 0, "min-show must not delay SIGTERM")
            #expect(try f.splashWindows().isEmpty)
            #expect(helper.log.contains("taken down: signal 15"), "\(helper.log)")
        }
    }
}
