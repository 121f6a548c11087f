import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 21, item 8: `integrate enable` never leaves our lines in `mimeapps.list` without the
/// record that undoes them — not when the service is killed at any point of the edit, not when
/// the record's file system is full; `disable` then gives the list back byte for byte.
@Suite struct IntegrationCrashTests {
    static let schemes = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]

    /// A list with a comment, a default of one of the schemes, CRLF and bytes that are not UTF-8.
    static let original: [UInt8] = Array("# my defaults (caf".utf8) + [0xE9] + Array(")\n[Default Applications]\ntext/html=firefox.desktop\r\n".utf8)
        + Array("x-scheme-handler/bravo=org.example.bravo.desktop\n# the end".utf8) + [0xFF, 0x0A]

    /// A fixture with our entry, a handler per scheme and ``original`` as the list.
    static func fixture() throws -> ServiceFixture {
        let f = try ServiceFixture()
        let ours = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/\(Contract.ownDesktopID)"), encoding: .utf8)
        try ours.write(to: f.applications.appendingPathComponent(Contract.ownDesktopID), atomically: true, encoding: .utf8)
        for s in schemes { try f.entry("org.example.\(s).desktop", "Name=\(s)\nExec=/bin/true %u\nMimeType=x-scheme-handler/\(s);") }
        try Data(original).write(to: list(f))
        return f
    }

    static func list(_ f: ServiceFixture) -> URL { f.configHome.appendingPathComponent("mimeapps.list") }
    static func record(_ f: ServiceFixture) -> URL { f.configHome.appendingPathComponent("schemebridge/integration") }
    static func bytes(_ url: URL) -> [UInt8]? { FileManager.default.contents(atPath: url.path).map { Array($0) } }

    /// The service's pid once it runs (a status call starts it).
    static func runningService(_ f: ServiceFixture) async throws -> Int32 {
        let status = try await CLITests.cli(f, "integrate", "status")
        try #require(status.status == 0, "\(status.stderr)\n\(f.serviceLog)")
        return try #require(await f.servicePID())
    }

    @Test func aKillAtAnyPointOfEnableLeavesARestorableList() async throws {
        let f = try Self.fixture()
        defer { f.stop() }
        // How long an enable takes here (the client's start included), to spread the kills over it.
        _ = try await Self.runningService(f)
        let clock = ContinuousClock()
        let start = clock.now
        let enabled = try await f.gdbus("EnableIntegration", "@as []")
        let took = clock.now - start
        #expect(enabled.status == 0 && Self.bytes(Self.list(f)) != Self.original, "\(enabled.stdout)\(enabled.stderr)")
        #expect(try await CLITests.cli(f, "integrate", "disable").status == 0)
        try #require(Self.bytes(Self.list(f)) == Self.original, "a plain enable and disable does not restore the list")
        let spread = max(took.components.seconds * 1_000_000 + took.components.attoseconds / 1_000_000_000_000, 2000)
        let runs = 40
        var restorable = 0, routedWhenKilled = 0, halfWay = 0
        for run in 0..<runs {
            let pid = try await Self.runningService(f)
            let enabling = Task { try await f.gdbus("EnableIntegration", "@as []") }
            // A sweep over the whole call, each kill at a random point of its own slice.
            usleep(UInt32((Double(run) + Double.random(in: 0..<1)) * Double(spread) / Double(runs)))
            kill(pid, SIGKILL)
            _ = try? await enabling.value
            #expect(await Tools.eventually { await f.servicePID() != pid })
            if Self.bytes(Self.list(f)) != Self.original { routedWhenKilled += 1 }
            // Stopped half-way: an intent left, or (as before the intent) lines without a record.
            if FileManager.default.fileExists(atPath: Self.record(f).path + ".pending")
                || (Self.bytes(Self.list(f)) != Self.original && Self.bytes(Self.record(f)) == nil) { halfWay += 1 }
            // The next service finishes or undoes the edit; disable then gives everything back.
            let disable = try await CLITests.cli(f, "integrate", "disable")
            let pending = FileManager.default.fileExists(atPath: Self.record(f).path + ".pending")
            if disable.status == 0, Self.bytes(Self.list(f)) == Self.original, Self.bytes(Self.record(f)) == nil, !pending {
                restorable += 1
            } else {
                // Put it right for the next run, and say what was left.
                Issue.record("left: \(String(decoding: Self.bytes(Self.list(f)) ?? [], as: UTF8.self)) record: \(Self.bytes(Self.record(f)) != nil) \(disable.stderr)")
                try Data(Self.original).write(to: Self.list(f))
                try? FileManager.default.removeItem(at: Self.record(f))
            }
        }
        print("integration kill test: \(restorable) of \(runs) runs restorable byte for byte; \(routedWhenKilled) killed after the list changed, \(halfWay) half-way; kills spread over \(spread) µs")
        #expect(restorable == runs)
    }

    /// The record's directory is a small tmpfs (mounting needs root, which the test runs have).
    @Test func aFullDiskForTheRecordLeavesTheListAsItWas() async throws {
        let f = try Self.fixture()
        defer { f.stop() }
        let dir = f.configHome.appendingPathComponent("schemebridge")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let mounted = try await Tools.run(["mount", "-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", dir.path])
        try #require(mounted.status == 0, "cannot mount a small tmpfs (this test needs root): \(mounted.stderr)")
        defer { _ = Glibc.umount2(dir.path, Int32(MNT_DETACH)) }
        let filler = dir.appendingPathComponent("filler")
        // Full: not even the intent fits, so the list is never touched.
        _ = try await Tools.run(["dd", "if=/dev/zero", "of=\(filler.path)", "bs=4096", "count=64"])
        let full = try await CLITests.cli(f, "integrate", "enable")
        #expect(full.status != 0 && full.stderr.contains("schemebridge"), "\(full.stdout)\(full.stderr)")
        #expect(Self.bytes(Self.list(f)) == Self.original, "our lines stayed with no record")
        #expect(try await CLITests.cli(f, "integrate", "status").stdout.contains("integration: off"))
        // One page free: the intent fits, the record does not; the list is put back.
        _ = try await Tools.run(["dd", "if=/dev/zero", "of=\(filler.path)", "bs=4096", "count=3"])
        let tight = try await CLITests.cli(f, "integrate", "enable")
        #expect(tight.status != 0, "\(tight.stdout)\(tight.stderr)")
        #expect(Self.bytes(Self.list(f)) == Self.original, "our lines stayed with no record")
        #expect(!FileManager.default.fileExists(atPath: Self.record(f).path + ".pending"))
        // Room again: enable, then disable gives the list back byte for byte.
        try FileManager.default.removeItem(at: filler)
        #expect(try await CLITests.cli(f, "integrate", "enable").status == 0)
        #expect(Self.bytes(Self.list(f)) != Self.original)
        #expect(try await CLITests.cli(f, "integrate", "disable").status == 0)
        #expect(Self.bytes(Self.list(f)) == Self.original)
    }
}
