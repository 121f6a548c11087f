import DBusTestSupport
import Foundation
import Testing

/// The service's D-Bus loop thread asks the kernel for short slices (0.1 ms), so that it runs
/// soon when woken beside busy threads (docs/PERFORMANCE.md, session 15); `SCHEMEBRIDGE_SLICE_US=0`
/// leaves the kernel's default (schemebridged(8)).
@Suite struct LoopSliceTests {
    /// The `se.slice` the kernel shows for the service's `dbus-loop` thread, in ns.
    static func loopSlice(_ f: ServiceFixture) async throws -> Int? {
        let pid = try #require(await f.servicePID())
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        for task in tasks where (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) == "dbus-loop\n" {
            let sched = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/sched", encoding: .utf8)
            let line = sched.split(separator: "\n").first { $0.hasPrefix("se.slice") }
            return line.flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    @Test(arguments: [(nil, 100_000), ("0", nil)] as [(String?, Int?)])
    func theLoopThreadRunsInShortSlices(setting: String?, expected: Int?) async throws {
        let f = try ServiceFixture(extraEnvironment: setting.map { ["SCHEMEBRIDGE_SLICE_US": $0] } ?? [:])
        defer { f.stop() }
        let asked = try await f.dbusSend("CanOpenURL", "string:nothing://x")  // the bus starts the service
        #expect(asked.status == 0, "\(asked.stderr)")
        var slice: Int?
        _ = await Tools.eventually { slice = try? await Self.loopSlice(f); return expected == nil ? slice != nil : slice == expected }
        if let expected { #expect(slice == expected) } else { #expect(slice != nil && slice != 100_000, "the kernel's default: \(String(describing: slice))") }
    }
}
