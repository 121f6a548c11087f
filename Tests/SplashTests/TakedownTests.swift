import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// When the launch image goes: the handler's window, its exit, startup notification, the timeout.
    ///
    /// Nothing here races the clock: a stand-in app maps its window (or sets its properties, or
    /// exits) when the test opens a gate, after the test has seen the splash; the helper's reason
    /// for going is read from its log. How long a take-down took is printed (MEASURE lines), not
    /// asserted: on a loaded machine any latency can grow, and the timeout (60 s here) is what a
    /// missed window would show as.
    @Suite struct Takedown {
        static let minShow = 300

        /// Starts a handler window that maps once the test opens the "map" gate, and the helper
        /// with `helperArguments` (given the handler's pid); opens the gate once the splash is on
        /// screen, and returns the helper's log and the time from the handler's map (or the end of
        /// the minimum show time, if later) to the splash leaving the screen.
        func takedown(window windowArguments: [String], helper helperArguments: (Int32) -> [String],
                      windowClass: String, fixture f: SplashFixture) async throws -> (ms: Double, log: String, window: String?) {
            let handler = try f.startWindow(windowArguments + ["--map-when", f.gate.file("map"), "--wm-class", windowClass])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0",
                                            "--min-show-ms", "\(Self.minShow)", "--timeout-ms", "60000"] + helperArguments(handler.process.pid))
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "splash never mapped: \(helper.log)")
            f.gate.release("map")
            #expect(await f.exitStatus(of: helper) == 0, "\(helper.log)")
            let splash = try #require(f.recorder.splashMap)
            let handlerMap = try #require(f.recorder.firstMap(ofClass: windowClass), "handler window never mapped")
            let gone = try #require(f.recorder.firstGone(splash.window), "splash never left the screen")
            #expect(try f.splashWindows().isEmpty)
            let shown = SplashFixture.shownMilliseconds(helper.log)
            #expect(shown.map { $0 >= Self.minShow } == true, "shown only \(shown.map { "\($0)" } ?? "?") ms: \(helper.log)")
            let delay = gone.time - max(handlerMap.time, splash.time + Double(Self.minShow))
            print("MEASURE take-down after a \(windowClass) window mapped: \(String(format: "%.1f", delay)) ms")
            return (delay, helper.log, await SplashFixture.mappedWindowPrinted(handler.stdout))
        }

        @Test func windowWithTheHandlersPIDTakesItDown() async throws {
            let f = try SplashFixture()
            let (_, log, window) = try await takedown(window: [], helper: { ["--pid", "\($0)"] }, windowClass: "PidApp", fixture: f)
            let id = try #require(window)
            #expect(log.contains("taken down: window \(id) _NET_WM_PID"), "\(log)")
        }

        @Test func windowWithTheStartupIDTakesItDown() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "600"])
            let (_, log, window) = try await takedown(window: ["--pid", "none", "--startup-id", "sb-test-42_TIME0"],
                                                      helper: { _ in ["--pid", "\(sleeper.pid)", "--startup-id", "sb-test-42_TIME0"] },
                                                      windowClass: "SnApp", fixture: f)
            let id = try #require(window)
            #expect(log.contains("taken down: window \(id) _NET_STARTUP_ID sb-test-42_TIME0"), "\(log)")
        }

        @Test func newWindowWithTheWMClassTakesItDown() async throws {
            let f = try SplashFixture()
            let (_, log, window) = try await takedown(window: ["--pid", "none"], helper: { _ in ["--wm-class", "org.example.todo"] },
                                                      windowClass: "org.example.Todo", fixture: f)
            let id = try #require(window)
            #expect(log.contains("taken down: window \(id) WM_CLASS"), "\(log)")
        }

        @Test func windowOfADescendantOfTheHandlerCounts() async throws {
            let f = try SplashFixture()
            // sh forks the window program (no exec: a command follows), so the window's _NET_WM_PID is sh's child.
            let exe = try Built.executable("splash-test-window")
            let out = f.directory.appendingPathComponent("kid.out").path
            let shell = try f.start(["/bin/sh", "-c", "'\(exe)' --map-when '\(f.gate.file("map"))' --wm-class KidApp > '\(out)'; true"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(shell.pid)"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            f.gate.release("map")
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let kid = try #require(f.recorder.firstMap(ofClass: "KidApp"))
            let gone = try #require(f.recorder.firstGone(splash.window))
            print("MEASURE take-down after a descendant's window mapped: \(String(format: "%.1f", gone.time - kid.time)) ms")
            let id = try #require(await SplashFixture.mappedWindowPrinted(URL(fileURLWithPath: out)))
            #expect(helper.log.contains("taken down: window \(id) _NET_WM_PID"), "\(helper.log)")
        }

        @Test func propertiesSetJustAfterMappingAreSeen() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "600"])
            // Mapped without properties (which must not count), then given its _NET_STARTUP_ID
            // when the test opens the second gate.
            let window = try f.startWindow(["--map-when", f.gate.file("map"), "--pid", "none", "--startup-id", "late-id",
                                            "--properties-when", f.gate.file("properties"), "--wm-class", "LateApp"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--startup-id", "late-id"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            f.gate.release("map")
            try #require(await Tools.eventually { SplashFixture.mappedWindow(window.stdout) != nil }, "the app never mapped")
            // Still up: a window without properties is nobody's. (The helper's own log is the
            // witness below; this only makes sure the properties come after the map.)
            #expect(helper.process.isRunning, "taken down by a window without properties: \(helper.log)")
            f.gate.release("properties")
            #expect(await f.exitStatus(of: helper) == 0)
            let id = try #require(SplashFixture.mappedWindow(window.stdout))
            #expect(helper.log.contains("taken down: window \(id) _NET_STARTUP_ID late-id"), "\(helper.log)")
        }

        @Test func windowAlreadyThereAtStartMeansItIsNeverShown() async throws {
            let f = try SplashFixture()
            let handler = try f.startWindow(["--wm-class", "EarlyApp"])
            try #require(await Tools.eventually { f.recorder.firstMap(ofClass: "EarlyApp") != nil })
            // A show delay far longer than any run: only the window found at start can end it.
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "600000", "--timeout-ms", "600000",
                                            "--pid", "\(handler.process.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(f.recorder.splashMap == nil, "the splash was shown")
            #expect(helper.log.contains("never shown: window"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func fastHandlerMapsWithinTheShowDelaySoItIsNeverShown() async throws {
            let f = try SplashFixture()
            let handler = try f.startWindow(["--wm-class", "FastApp"])
            // The app maps "at once" compared with a 10-minute show delay, however loaded the machine.
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "600000", "--timeout-ms", "600000",
                                            "--pid", "\(handler.process.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            // The recorder saw every map on the server: the splash's never came.
            #expect(f.recorder.splashMap == nil, "the splash was mapped")
            #expect(f.recorder.firstMap(ofClass: "FastApp") != nil)
            #expect(helper.log.contains("never shown: window"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
            #expect(try f.xvfb.pixel(320, 240) == [0, 0, 0])
        }

        @Test func windowOfAnotherInstanceWithTheSameWMClassDoesNotCount() async throws {
            let f = try SplashFixture()
            // Another window of the app is open before the launch; only a new one counts.
            let old = try f.startWindow(["--pid", "none", "--wm-class", "Todo"])
            try #require(await Tools.eventually { SplashFixture.mappedWindow(old.stdout) != nil })
            let sleeper = try f.start(["/bin/sleep", "600"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--wm-class", "todo"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            #expect(helper.process.isRunning, "taken down by the old window: \(helper.log)")
            let new = try f.startWindow(["--pid", "none", "--wm-class", "Todo", "--geometry", "50x50+500+400"])
            #expect(await f.exitStatus(of: helper) == 0)
            let oldID = try #require(SplashFixture.mappedWindow(old.stdout)), newID = try #require(await SplashFixture.mappedWindowPrinted(new.stdout))
            // The log names the window that took it down: the new one, never the old.
            #expect(helper.log.contains("taken down: window \(newID) WM_CLASS Todo.Todo"), "\(helper.log)")
            #expect(!helper.log.contains(oldID), "\(helper.log)")
        }

        @Test func handlerExitingTakesItDown() async throws {
            let f = try SplashFixture()
            let handler = try f.start(["/bin/sleep", "600"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "600000", "--pid", "\(handler.pid)", "--startup-id", "exit-id"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            handler.terminate()  // the handler exits now, while the splash is up
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("taken down: handler \(handler.pid) exited"), "\(helper.log)")
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
            #expect(helper.log.contains("never shown: handler \(gone.pid) exited"), "\(helper.log)")
        }

        @Test func timeoutTakesItDown() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "600"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "1000", "--pid", "\(sleeper.pid)"])
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let gone = try #require(f.recorder.firstGone(splash.window))
            // Both ends on the test's clock, the start taken before the helper was spawned: a
            // lower bound that load can only lengthen.
            #expect(gone.time - helper.startedAt >= 1000)
            #expect(helper.log.contains("taken down: timeout"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func startupNotificationRemoveTakesItDown() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "600"])
            let id = "org.example.Todo-1234-host-todo_TIME567"
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "0",
                                            "--timeout-ms", "60000", "--pid", "\(sleeper.pid)", "--startup-id", id, "--name", "Todo \"List\"",
                                            "--wm-class", "Todo"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            // The helper announced the launch on the service's behalf.
            let announced = await Tools.eventually { f.recorder.messages.contains { $0.hasPrefix("new:") } }
            #expect(announced)
            let new = f.recorder.messages.first { $0.hasPrefix("new:") } ?? ""
            #expect(new.contains(#"ID="\#(id)""#) && new.contains(#"NAME="Todo \"List\"""#) && new.contains(#"SCREEN="0""#), "\(new)")

            // Someone else's launch ends: the helper says it ignored it, and stays.
            try f.sendStartupMessage(#"remove: ID="other-id""#)
            #expect(await Tools.eventually { helper.log.contains("of another launch ignored (ID other-id)") }, "\(helper.log)")
            #expect(helper.process.isRunning, "taken down by another id's remove: \(helper.log)")
            try f.sendStartupMessage(#"remove: ID="\#(id)""#)
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(helper.log.contains("taken down: startup notification remove:"), "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
            // The app said it is done: the helper does not send a second remove.
            #expect(await Tools.eventually { f.recorder.messages.contains(#"remove: ID="\#(id)""#) })
            #expect(f.recorder.messages.filter { $0.contains(id) && $0.hasPrefix("remove:") }.count == 1)
        }

        @Test func minimumShowTimeIsKeptEvenWhenTheAppIsUpAtOnce() async throws {
            let f = try SplashFixture()
            let handler = try f.startWindow(["--map-when", f.gate.file("map"), "--wm-class", "QuickApp"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "2000",
                                            "--timeout-ms", "60000", "--pid", "\(handler.process.pid)"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            f.gate.release("map")
            #expect(await f.exitStatus(of: helper) == 0)
            let splash = try #require(f.recorder.splashMap, "\(helper.log)")
            let gone = try #require(f.recorder.firstGone(splash.window))
            // The helper's own clock says how long it kept the splash up.
            let shown = SplashFixture.shownMilliseconds(helper.log)
            #expect(shown.map { $0 >= 2000 } == true, "\(helper.log)")
            #expect(helper.log.contains("taken down: window"), "\(helper.log)")
            print("MEASURE minimum show 2000 ms: on screen \(String(format: "%.0f", gone.time - splash.time)) ms as the recorder saw it")
        }

        @Test func sigtermTakesItDownCleanly() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "600"])
            // A minimum show time far past the ceiling of the wait below: only SIGTERM can end it.
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--min-show-ms", "600000",
                                            "--timeout-ms", "600000", "--pid", "\(sleeper.pid)"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            helper.process.signal(SIGTERM)
            #expect(await f.exitStatus(of: helper) == 0, "min-show must not delay SIGTERM")
            #expect(try f.splashWindows().isEmpty)
            #expect(helper.log.contains("taken down: signal 15"), "\(helper.log)")
        }
    }
}
