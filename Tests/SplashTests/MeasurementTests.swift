import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// Numbers for docs/SPLASH.md: start-to-mapped time beyond the show delay, and peak RSS.
    @Suite struct Measurements {
        func measure(width: Int, height: Int, runs: Int) async throws -> (latencies: [Double], peakKiB: [Int]) {
            var latencies: [Double] = [], peaks: [Int] = []
            for _ in 0..<runs {
                let f = try SplashFixture(width: width, height: height)
                let image = TestImages.Image(width: width, height: height) { x, y in
                    [UInt8(x % 256), UInt8(y % 256), 128, (x / 8 + y / 8) % 2 == 0 ? 255 : 160]
                }
                let png = try f.png(image)
                let sleeper = try f.start(["/bin/sleep", "60"])
                let helper = try f.startHelper(["--image", png, "--show-delay-ms", "0", "--timeout-ms", "60000", "--pid", "\(sleeper.pid)"])
                try #require(await Tools.eventually(timeout: .seconds(30)) { f.recorder.splashMap != nil }, "\(helper.log)")
                latencies.append(f.recorder.splashMap!.time - helper.startedAt)
                try await Task.sleep(for: .milliseconds(200))
                if let peak = SplashFixture.peakRSSKiB(helper.process.pid) { peaks.append(peak) }
                helper.process.signal(SIGTERM)
                #expect(await f.exitStatus(of: helper) == 0)
            }
            return (latencies.sorted(), peaks.sorted())
        }

        @Test func startToMappedTimeAndPeakRSS() async throws {
            for (w, h) in [(640, 480), (1920, 1080)] {
                let (latencies, peaks) = try await measure(width: w, height: h, runs: 5)
                let median = latencies[latencies.count / 2]
                print("MEASURE \(w)x\(h) image on a \(w)x\(h) screen, --show-delay-ms 0: start→mapped ms \(latencies.map { Int($0.rounded()) }) median \(Int(median.rounded())); VmHWM KiB \(peaks)")
                #expect(median < 1000)
                #expect((peaks.last ?? 0) < 128 * 1024)
            }
        }
    }
}
