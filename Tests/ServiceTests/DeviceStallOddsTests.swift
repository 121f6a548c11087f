import DBus
import DBusTestSupport
import Foundation
import Glibc
import Testing

/// A measurement, not a check (run with `SB_STALL_ODDS=<rounds>`; docs/GUIDE.md, "When a file
/// does not arrive"): on one pair of real engines, in one run, files of 1 KiB, 5 MiB and 10 MiB
/// sent alternately through A's SchemeBridge (`schemebridge share --to B FILE`) and
/// through A's engine's own `shareUrl`, each after the one before arrived; a file B's engine does
/// not announce within 30 s is counted as stalled (its `.part` size noted), and B's engine is
/// restarted (every later file would wait behind the lost one). Prints the table; fails only
/// when the pair cannot be used.
@Suite(.serialized) struct DeviceStallOddsTests {
    @Test(.timeLimit(.minutes(60)), .enabled(if: ProcessInfo.processInfo.environment["SB_STALL_ODDS"] != nil, "a measurement: SB_STALL_ODDS=<rounds>"))
    func stallOddsBySizeThroughSchemeBridgeAndTheEngine() async throws {
        let rounds = Int(ProcessInfo.processInfo.environment["SB_STALL_ODDS"] ?? "") ?? 10
        let pair = try await KDEConnectPair()
        defer { pair.stop() }
        let (a, b) = (pair.a, pair.b)
        #expect(try await a.fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)
        try await pair.startAndPair()
        let cli = try Built.executable("schemebridge")
        let env = ["DBUS_SESSION_BUS_ADDRESS": a.fixture.bus.address]
        #expect(await Tools.eventually {
            (try? await Tools.run([cli, "share", "--list", "application/octet-stream"], environment: env))?.stdout.contains(b.id) == true
        })
        let arrivals = Arrivals()
        var collector: Task<Void, Never>?
        func listen() async throws {
            collector?.cancel()
            let received = try await b.connection.signals(matching: MatchRule(sender: KDEConnectPair.bus, interface: "org.kde.kdeconnect.device.share",
                                                                               member: "shareReceived"))
            collector = Task { for await m in received { if let s = m.body.first?.string { arrivals.list.withLock { $0.append(s) } } } }
        }
        try await listen()
        defer { collector?.cancel() }
        let sizes = [1 << 10, 5 << 20, 10 << 20]
        var noise = [UInt8](repeating: 0, count: (10 << 20) + 4096)
        var x: UInt32 = 0x2545_F491
        for i in noise.indices { x ^= x << 13; x ^= x >> 17; x ^= x << 5; noise[i] = UInt8(truncatingIfNeeded: x) }
        let sharePath = try ObjectPath("/modules/kdeconnect/devices/\(b.id)/share")
        var tally: [String: (sent: Int, stalled: Int, times: [Double])] = [:]
        var notes: [String] = []
        let clock = ContinuousClock()
        for round in 1...rounds {
            for size in sizes {
                for way in ["schemebridge", "engine"] {
                    let name = "odds-\(way)-\(size)-\(round).bin"
                    let file = a.fixture.root.appendingPathComponent(name)
                    try Data(noise[(round % 4096)..<((round % 4096) + size)]).write(to: file)
                    let start = clock.now
                    if way == "schemebridge" {
                        // Not waiting for the delivery: Share returns once the engine took the file, as
                        // `shareUrl` does, so the times compare.
                        let out = try await Tools.run([cli, "share", "--to", b.id, file.path], environment: env, timeout: .seconds(300))
                        if !out.succeeded { notes.append("\(name): \(out.stdout) \(out.stderr)") }
                    } else {
                        _ = try await a.call(sharePath, "org.kde.kdeconnect.device.share", "shareUrl", [.string("file://" + file.path)])
                    }
                    let url = "file://" + b.downloads.appendingPathComponent(name).path
                    let arrived = await Tools.eventually(timeout: .seconds(30)) { arrivals.list.withLock { $0.contains(url) } }
                    let key = "\(way) \(size)"
                    var t = tally[key] ?? (0, 0, [])
                    t.sent += 1
                    if arrived {
                        let d = clock.now - start
                        t.times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
                    } else {
                        t.stalled += 1
                        let part = b.downloads.appendingPathComponent(name + ".part").path
                        let size = (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int).map { "\($0) bytes" } ?? "none"
                        notes.append("\(name): stalled, .part \(size); B's engine restarted")
                        await pair.stopEngine(b)
                        try await pair.startEngine(b)
                        try await listen()
                        _ = try await a.call(KDEConnectPair.daemonPath, KDEConnectPair.daemon, "forceOnNetworkChange")
                        let back = await Tools.eventually { await a.deviceProperty(b.id, "isReachable")?.bool == true }
                        let plugin = await Tools.eventually { await a.hasSharePlugin(b.id) }
                        try #require(back && plugin, "B did not come back after its restart: \(b.engineLog.suffix(2000))")
                    }
                    tally[key] = t
                }
            }
        }
        var table = ["| way | size | sent | stalled | mean s | max s |", "|---|---|---|---|---|---|"]
        for way in ["schemebridge", "engine"] {
            for size in sizes {
                let t = tally["\(way) \(size)"] ?? (0, 0, [])
                let mean = t.times.isEmpty ? 0 : t.times.reduce(0, +) / Double(t.times.count)
                table.append("| \(way) | \(size) | \(t.sent) | \(t.stalled) | \(String(format: "%.2f", mean)) | \(String(format: "%.2f", t.times.max() ?? 0)) |")
            }
        }
        print("DeviceStallOddsTests:\n" + table.joined(separator: "\n") + "\n" + notes.joined(separator: "\n"))
    }

    /// A measurement, not a check (run with `SB_STALL_PAIRS=<pairs>`): the receiving stall with and
    /// without KDE Connect 23.08's receiving fix (``KDEConnectReceivingFix``), taking turns. On each
    /// fresh pair A's engine alone sends two files in one `shareUrls` (10 MiB, then 1 KiB) — the
    /// quickest way to the stall (docs/GUIDE.md, "When a file does not arrive") — and a file B's
    /// engine does not announce within 30 s counts as stalled. Prints the counts; fails only when
    /// a pair cannot be used or a file arrives different.
    @Test(.timeLimit(.minutes(60)), .enabled(if: ProcessInfo.processInfo.environment["SB_STALL_PAIRS"] != nil, "a measurement: SB_STALL_PAIRS=<pairs>"))
    func twoFilesInOneShareWithAndWithoutTheReceivingFix() async throws {
        let pairs = Int(ProcessInfo.processInfo.environment["SB_STALL_PAIRS"] ?? "") ?? 10
        var noise = [UInt8](repeating: 0, count: 10 << 20)
        var x: UInt32 = 0x2545_F491
        for i in noise.indices { x ^= x << 13; x ^= x >> 17; x ^= x << 5; noise[i] = UInt8(truncatingIfNeeded: x) }
        let files = [("big.bin", Data(noise)), ("small.bin", Data(noise[0..<1024]))]
        var stalled = [false: 0, true: 0], lines: [String] = []
        for round in 1...pairs {
            for fix in [false, true] {
                let pair = try await KDEConnectPair(receivingFix: fix)
                defer { pair.stop() }
                let (a, b) = (pair.a, pair.b)
                try await pair.startAndPair()
                let arrivals = Arrivals()
                let received = try await b.connection.signals(matching: MatchRule(sender: KDEConnectPair.bus, interface: "org.kde.kdeconnect.device.share",
                                                                                   member: "shareReceived"))
                let collector = Task { for await m in received { if let s = m.body.first?.string { arrivals.list.withLock { $0.append(s) } } } }
                defer { collector.cancel() }
                for (name, bytes) in files { try bytes.write(to: a.fixture.root.appendingPathComponent(name)) }
                let share = try ObjectPath("/modules/kdeconnect/devices/\(b.id)/share")
                _ = try await a.call(share, "org.kde.kdeconnect.device.share", "shareUrls",
                                     [.strings(files.map { "file://" + a.fixture.root.appendingPathComponent($0.0).path })])
                var got: [String] = []
                for (name, bytes) in files {
                    let file = b.downloads.appendingPathComponent(name)
                    if await Tools.eventually(timeout: .seconds(30), { arrivals.list.withLock { $0.contains("file://" + file.path) } }) {
                        #expect(try Data(contentsOf: file) == bytes, "\(name) arrived different")
                        got.append("\(name) arrived")
                    } else {
                        stalled[fix, default: 0] += 1
                        let part = (try? FileManager.default.attributesOfItem(atPath: file.path + ".part")[.size] as? Int).map { "\($0) bytes" } ?? "none"
                        got.append("\(name) STALLED (.part \(part))")
                    }
                }
                lines.append("pair \(round) \(fix ? "with the fix" : "Debian's"): " + got.joined(separator: ", "))
            }
        }
        print("DeviceStallOddsTests: two files in one shareUrls, \(pairs) pairs each; files stalled: Debian's engine \(stalled[false] ?? 0),"
              + " with the receiving fix \(stalled[true] ?? 0)\n" + lines.joined(separator: "\n"))
    }
}
