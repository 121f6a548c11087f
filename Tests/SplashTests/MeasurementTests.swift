import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// Numbers for docs/SPLASH.md: start-to-mapped time beyond the show delay (from spawning the
    /// helper to the splash's MapNotify), and peak RSS while shown. Set `SCHEMEBRIDGE_SPLASH` to a
    /// release build to measure that.
    @Suite struct Measurements {
        func measure(width: Int, height: Int, opaque: Bool, showDelay: Int, runs: Int) async throws -> (latencies: [Double], peakKiB: [Int]) {
            var latencies: [Double] = [], peaks: [Int] = []
            for _ in 0..<runs {
                let f = try SplashFixture(width: width, height: height)
                let image = TestImages.Image(width: width, height: height) { x, y in
                    [UInt8(x % 256), UInt8(y % 256), 128, opaque || (x / 8 + y / 8) % 2 == 0 ? 255 : 160]
                }
                let png = try f.png(image)
                let sleeper = try f.start(["/bin/sleep", "600"])
                let helper = try f.startHelper(["--image", png, "--show-delay-ms", "\(showDelay)", "--timeout-ms", "60000", "--pid", "\(sleeper.pid)"])
                try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
                latencies.append(f.recorder.splashMap!.time - helper.startedAt - Double(showDelay))
                // VmHWM is the peak: read once the splash is on screen, it holds the drawing's.
                if let peak = SplashFixture.peakRSSKiB(helper.process.pid) { peaks.append(peak) }
                helper.process.signal(SIGTERM)
                #expect(await f.exitStatus(of: helper) == 0)
            }
            return (latencies.sorted(), peaks.sorted())
        }

        /// One configuration measured: a screen (and image) size, opaque or not, a show delay.
        struct Configuration: Sendable, CustomTestStringConvertible {
            let width: Int, height: Int, opaque: Bool, showDelay: Int
            var testDescription: String { "\(width)x\(height) \(opaque ? "opaque" : "translucent"), delay \(showDelay) ms" }
        }

        /// Each configuration is a case of its own (they run beside each other and the rest).
        @Test(arguments: [
            Configuration(width: 640, height: 480, opaque: true, showDelay: 0), Configuration(width: 640, height: 480, opaque: false, showDelay: 0),
            Configuration(width: 1920, height: 1080, opaque: true, showDelay: 0), Configuration(width: 1920, height: 1080, opaque: false, showDelay: 0),
            Configuration(width: 1920, height: 1080, opaque: true, showDelay: 150), Configuration(width: 1920, height: 1080, opaque: false, showDelay: 150),
        ])
        func startToMappedTimeAndPeakRSS(_ c: Configuration) async throws {
            let (latencies, peaks) = try await measure(width: c.width, height: c.height, opaque: c.opaque, showDelay: c.showDelay, runs: 5)
            let median = latencies[latencies.count / 2]
            print("MEASURE \(c.width)x\(c.height) \(c.opaque ? "opaque" : "translucent") image on a \(c.width)x\(c.height) screen, --show-delay-ms \(c.showDelay): start→mapped minus the delay, ms \(latencies.map { Int($0.rounded()) }) median \(Int(median.rounded())); VmHWM KiB \(peaks)")
            // Times are reported, not asserted (a loaded machine stretches them); memory is asserted.
            #expect((peaks.last ?? 0) < 128 * 1024)
        }
    }
}
