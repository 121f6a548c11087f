import DBusTestSupport
import Foundation
import Testing

extension SplashTests {
    /// Bad input ends the helper with a message and a distinct status; nothing is shown or left over.
    @Suite struct Errors {
        /// A PNG header claiming `width`×`height` followed by a tiny IDAT and IEND.
        static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
            func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
            func crc(_ bytes: [UInt8]) -> UInt32 {
                var c: UInt32 = 0xFFFF_FFFF
                for b in bytes {
                    c ^= UInt32(b)
                    for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
                }
                return c ^ 0xFFFF_FFFF
            }
            func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
                let body = Array(type.utf8) + data
                return be(UInt32(data.count)) + body + be(crc(body))
            }
            let ihdr = be(width) + be(height) + [8, 6, 0, 0, 0]
            let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
            return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
        }

        @Test func badImagesExitWithStatus2() async throws {
            let f = try SplashFixture()
            let dir = f.directory
            let good = try Data(contentsOf: URL(fileURLWithPath: try f.png(TestImages.plain, name: "good.png")))
            let cases: [(String, Data?)] = [
                ("missing.png", nil),
                ("empty.png", Data()),
                ("text.png", Data("this is not a PNG\n".utf8)),
                ("truncated.png", good.prefix(good.count / 2)),
                ("huge.png", Data(Self.pngHeader(width: 30_000, height: 30_000))),
                ("bomb.png", Data(Self.pngHeader(width: 16_000, height: 16_000))),
                ("a-directory", nil),
            ]
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("a-directory"), withIntermediateDirectories: true)
            for (name, data) in cases {
                let path = dir.appendingPathComponent(name).path
                if let data { try data.write(to: URL(fileURLWithPath: path)) }
                let helper = try f.startHelper(["--image", path, "--show-delay-ms", "0"])
                #expect(await f.exitStatus(of: helper) == 2, "\(name): \(helper.log)")
                #expect(helper.log.contains("cannot use image"), "\(name): \(helper.log)")
                #expect(helper.output.isEmpty)
            }
            #expect(f.recorder.splashMap == nil)
            #expect(try f.splashWindows().isEmpty)
        }

        @Test func noDisplayExitsWithStatus3() async throws {
            let f = try SplashFixture()
            let png = try f.png(TestImages.plain)
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "DISPLAY")
            let unset = try f.startHelper(["--image", png], environment: env)
            #expect(await f.exitStatus(of: unset) == 3)
            #expect(unset.log.contains("DISPLAY is not set"), "\(unset.log)")
            env["DISPLAY"] = ":4093"
            let wrong = try f.startHelper(["--image", png], environment: env)
            #expect(await f.exitStatus(of: wrong) == 3)
            #expect(wrong.log.contains("cannot open the X display ':4093'"), "\(wrong.log)")
        }

        @Test func badCommandLinesExitWithStatus1() async throws {
            let f = try SplashFixture()
            let png = try f.png(TestImages.plain)
            for arguments in [[], ["--image", png, "--show-delay-ms", "soon"], ["--image", png, "--pid", "-4"],
                              ["--image", png, "--frobnicate"], ["--image", png, "--scale-to-fit", "maybe"], ["--image", png, "--timeout-ms"]] {
                let helper = try f.startHelper(arguments)
                #expect(await f.exitStatus(of: helper) == 1, "\(arguments): \(helper.log)")
                #expect(helper.log.contains("see --help"), "\(arguments): \(helper.log)")
            }
            let help = try await Tools.run([try Built.executable("schemebridge-splash"), "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("--startup-id") && help.stdout.contains("Exit status"))
        }

        @Test func lostDisplayEndsTheHelperWithStatus4() async throws {
            let f = try SplashFixture()
            let sleeper = try f.start(["/bin/sleep", "600"])
            let helper = try f.startHelper(["--image", try f.png(TestImages.plain), "--show-delay-ms", "0", "--timeout-ms", "60000",
                                            "--pid", "\(sleeper.pid)"])
            try #require(await Tools.eventually { f.recorder.splashMap != nil }, "\(helper.log)")
            f.recorder.stop()
            f.xvfb.stop()
            #expect(await f.exitStatus(of: helper) == 4)
            #expect(helper.log.contains("lost the connection"), "\(helper.log)")
        }
    }
}
