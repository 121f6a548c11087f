import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Launch-image helpers under a flood of launches (issue 12, item 4): at most `MaxHelpers` at
/// once; past that a launch goes ahead without its image.
@Suite(.serialized) struct SplashLimitTests {
    /// Thirty launches from one client while every handler (and so every splash) stays up:
    /// before the fix there were thirty helpers.
    @Test func helpersAreCappedAndLaunchesGoOn() async throws {
        let s = try SplashServiceTests.setUp(config: "[LaunchImages]\nTimeout=600000\nMaxHelpers=4\n")
        defer { s.f.stop(); s.x.stop() }
        let r = try await Tools.run(Clients.command("SplashLimit/thirty-launches", [s.f.bus.address]), environment: Clients.serviceNames)
        #expect(r.status == 0 && r.stdout == "4\n", "launches with their image shown: \(r.stdout)\(r.stderr)")
        let helpers = await s.f.splashHelpers()
        #expect(helpers.count == 4, "\(helpers)")
        print("limits: 30 launches, \(helpers.count) splash helpers at once, \(helpers.map { MemoryBombTests.memory($0, "VmRSS") }.reduce(0, +) / 1024) MiB resident in all")
        s.f.release("todo")
        #expect(await SplashServiceTests.noSplashHelperLeft(s.f))
    }

    /// Thirty launches whose image is a 135 KB PNG claiming 8192×4096 (128 MiB decoded): each
    /// helper refuses it from its header. Prints the peak of all helpers' resident memory.
    @Test func aDecodingBombCostsLittle() async throws {
        let s = try SplashServiceTests.setUp(config: "[LaunchImages]\nTimeout=600000\n")
        defer { s.f.stop(); s.x.stop() }
        let bomb = s.images.appendingPathComponent("Default-todolist.png").path
        try await CompressedPNG.write(bomb, width: 8192, height: 4096)
        let sampler = Task {
            var peak = 0
            while !Task.isCancelled {
                let total = await s.f.splashHelpers().map { MemoryBombTests.memory($0, "VmHWM") }.reduce(0, +)
                peak = max(peak, total)
                try? await Task.sleep(for: .milliseconds(5))
            }
            return peak
        }
        for i in 0..<30 {
            let r = try await s.f.dbusSend("OpenURL", "string:todolist://bomb-\(i)")
            #expect(r.stdout.contains("boolean true"), "\(r.stderr)")
        }
        #expect(await SplashServiceTests.noSplashHelperLeft(s.f), "helpers refuse the image and go")
        sampler.cancel()
        print("limits: 30 launches with an 8192x4096 PNG: helpers' peak resident memory \(await sampler.value / 1024) MiB in all")
        s.f.release("todo")
    }
}
