import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// Issue 12, item 4: what one launch image may cost. A small file can claim a huge image
    /// (a 135 KB PNG decodes to 8192×4096, 128 MiB of pixels); the helper reads the header
    /// first and refuses it before anything is decoded, and its timeout holds while it decodes.
    @Suite struct ImageLimits {
        /// Writes an RGBA PNG of `width`×`height` of one grey with python's zlib (a real,
        /// fully decodable image that compresses to almost nothing); `depth` 8 or 16.
        static func compressedPNG(_ path: String, width: Int, height: Int, depth: Int = 8) async throws {
            let script = """
                import struct, sys, zlib
                w, h, d, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
                def chunk(t, b): return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)
                raw = (b'\\0' + b'\\x80' * (w * 4 * d // 8)) * h
                with open(path, 'wb') as f:
                    f.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, d, 6, 0, 0, 0))
                            + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
                """
            let r = try await Tools.run([Tools.systemPython, "-c", script, String(width), String(height), String(depth), path])
            if r.status != 0 { throw ToolError("cannot write \(path): \(r.stderr)") }
        }

        /// Before the fix this image was decoded (~140 MiB resident) and shown.
        @Test func anImageClaimingTooManyPixelsIsRefusedBeforeDecoding() async throws {
            let f = try SplashFixture()
            let path = f.directory.appendingPathComponent("bomb.png").path
            try await Self.compressedPNG(path, width: 8192, height: 4096)
            let helper = try f.startHelper(["--image", path, "--show-delay-ms", "0", "--timeout-ms", "600000"])
            #expect(await f.exitStatus(of: helper) == 2, "\(helper.log)")
            #expect(helper.log.contains("8192x4096 is too large"), "\(helper.log)")
            #expect(!helper.log.contains("loaded"), "\(helper.log)")
            #expect(f.recorder.splashMap == nil)
        }

        /// The timeout holds while the image is decoded: a helper whose time is up is gone
        /// without finishing the decoding (before the fix it decoded the whole image first, then
        /// went on to open its window).
        @Test func theTimeoutHoldsWhileDecoding() async throws {
            let f = try SplashFixture()
            let path = f.directory.appendingPathComponent("slow.png").path
            // Within the limits, and 16-bit: tens of milliseconds of decoding on any machine.
            try await Self.compressedPNG(path, width: 2896, height: 2896, depth: 16)
            let helper = try f.startHelper(["--image", path, "--show-delay-ms", "0", "--timeout-ms", "1"])
            #expect(await f.exitStatus(of: helper) == 0, "\(helper.log)")
            #expect(!helper.log.contains("loaded"), "the image was decoded after the timeout: \(helper.log)")
            #expect(f.recorder.splashMap == nil)
        }
    }
}
