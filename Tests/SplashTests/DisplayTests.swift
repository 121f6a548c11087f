import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// What the user sees while the launch image is up.
    @Suite struct Display {
        @Test func imageIsCentredPixelForPixelWithAlphaOverTheScreen() async throws {
            let f = try SplashFixture()
            let image = TestImages.pattern
            let helper = try f.startHelper(["--image", try f.png(image), "--show-delay-ms", "0", "--timeout-ms", "60000"])
            #expect(await Tools.eventually { f.recorder.splashMap != nil }, "splash never mapped: \(helper.log)")

            let x0 = (640 - image.width) / 2, y0 = (480 - image.height) / 2
            func mismatches(_ shot: Screenshot) -> [String] {
                var bad: [String] = []
                for y in 0..<shot.height {
                    for x in 0..<shot.width {
                        let inside = x >= x0 && x < x0 + image.width && y >= y0 && y < y0 + image.height
                        let expected = inside ? image.overBlack(x - x0, y - y0) : [0, 0, 0]
                        if shot.pixel(x, y) != expected, bad.count < 5 { bad.append("(\(x),\(y)) is \(shot.pixel(x, y)), expected \(expected)") }
                    }
                }
                return bad
            }
            var bad: [String] = ["no screenshot"]
            _ = try await Tools.eventually {
                bad = mismatches(try f.xvfb.screenshot())
                return bad.isEmpty
            }
            #expect(bad.isEmpty, "screen differs: \(bad)")

            // The window the user sees: exactly the image's size, centred.
            let windows = try f.splashWindows()
            #expect(windows.count == 1)
            #expect(windows.first.map { [$0.x, $0.y, $0.width, $0.height] } == [x0, y0, image.width, image.height])
            // The helper starts no processes of its own.
            #expect(SplashFixture.childrenOf(helper.process.pid).isEmpty)

            helper.process.signal(SIGTERM)
            #expect(await f.exitStatus(of: helper) == 0, "\(helper.log)")
            #expect(try f.splashWindows().isEmpty)
            #expect(try f.xvfb.screenshot().boundingBox() == nil, "something is left on screen")
            #expect(helper.output.isEmpty)
        }

        @Test func imageLargerThanTheScreenIsScaledDownToFit() async throws {
            let f = try SplashFixture()
            // 1000×600 on 640×480: scale 0.64 → 640×384, centred at y = 48.
            let big = TestImages.Image(width: 1000, height: 600) { x, y in
                x < 500 ? [220, 20, 60, 255] : (y < 300 ? [46, 139, 87, 255] : [65, 105, 225, 255])
            }
            let helper = try f.startHelper(["--image", try f.png(big), "--show-delay-ms", "0", "--timeout-ms", "60000"])
            #expect(await Tools.eventually { f.recorder.splashMap != nil }, "splash never mapped: \(helper.log)")
            var shot = try f.xvfb.screenshot()
            _ = try await Tools.eventually {
                shot = try f.xvfb.screenshot()
                return shot.pixel(160, 240) != [0, 0, 0]
            }
            let box = try #require(shot.boundingBox())
            #expect([box.x, box.y, box.width, box.height] == [Int]([0, 48, 640, 384]))
            #expect(shot.pixel(160, 240) == [220, 20, 60])
            #expect(shot.pixel(480, 100) == [46, 139, 87])
            #expect(shot.pixel(480, 400) == [65, 105, 225])
            #expect(try f.splashWindows().first.map { [$0.width, $0.height] } == [640, 384])

            helper.process.signal(SIGTERM)
            #expect(await f.exitStatus(of: helper) == 0)
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func scaleToFitNoCropsTheCentre() async throws {
            let f = try SplashFixture()
            let big = TestImages.Image(width: 800, height: 500) { x, _ in x < 400 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
            let helper = try f.startHelper(["--image", try f.png(big), "--show-delay-ms", "0", "--timeout-ms", "60000", "--scale-to-fit", "no"])
            #expect(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            var shot = try f.xvfb.screenshot()
            _ = try await Tools.eventually {
                shot = try f.xvfb.screenshot()
                return shot.pixel(0, 0) != [0, 0, 0]
            }
            // The centre 640×480 of the image: columns 80..<720, the colour change at x = 320.
            #expect(shot.pixel(319, 10) == [255, 0, 0])
            #expect(shot.pixel(320, 10) == [0, 0, 255])
            #expect(shot.boundingBox().map { [$0.x, $0.y, $0.width, $0.height] } == [0, 0, 640, 480])
            helper.process.signal(SIGTERM)
            #expect(await f.exitStatus(of: helper) == 0)
        }
    }
}
