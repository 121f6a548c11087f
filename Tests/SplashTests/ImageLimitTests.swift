import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// Issue 12, item 4: what one launch image may cost. A small file can claim a huge image
    /// (a 135 KB PNG decodes to 8192×4096, 128 MiB of pixels); the helper reads the header
    /// first and refuses it before anything is decoded, and its timeout holds while it decodes.
    @Suite struct ImageLimits {
        /// Before the fix this image was decoded (~140 MiB resident) and shown.
        @Test func anImageClaimingTooManyPixelsIsRefusedBeforeDecoding() async throws {
            let f = try SplashFixture()
            let path = f.directory.appendingPathComponent("bomb.png").path
            try await CompressedPNG.write(path, width: 8192, height: 4096)
            let helper = try f.startHelper(["--image", path, "--show-delay-ms", "0", "--timeout-ms", "600000"])
            #expect(await f.exitStatus(of: helper) == 2, "\(helper.log)")
            #expect(helper.log.contains("8192x4096 is too large"), "\(helper.log)")
            #expect(!helper.log.contains("loaded \(path)"), "\(helper.log)")
            #expect(f.recorder.splashMap == nil)
        }

        /// The timeout holds while the image is decoded: a helper whose time is up is gone
        /// without finishing the decoding (before the fix it decoded the whole image first, then
        /// went on to open its window).
        @Test func theTimeoutHoldsWhileDecoding() async throws {
            let f = try SplashFixture()
            let path = f.directory.appendingPathComponent("slow.png").path
            // Within the limits, and 16-bit: tens of milliseconds of decoding on any machine.
            try await CompressedPNG.write(path, width: 2896, height: 2896, depth: 16)
            // 50 ms: usually up while the image decodes; on a slow start, before it does.
            let helper = try f.startHelper(["--image", path, "--show-delay-ms", "0", "--timeout-ms", "50"])
            #expect(await f.exitStatus(of: helper) == 0, "\(helper.log)")
            #expect(!helper.log.contains("loaded \(path)"), "the image was decoded after the timeout: \(helper.log)")
            #expect(f.recorder.splashMap == nil)
        }
    }
}
