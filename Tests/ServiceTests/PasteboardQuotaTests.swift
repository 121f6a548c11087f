import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 21, item 6: quota squatting. An executable path costs nothing (a hard link of python is
/// a new one), so all callers known only by one share one small quota; at the global limits the
/// largest owner makes room for a newcomer; memory allocated past a memfd's end is charged.
/// Each test prints its figures (`MEASURE …`).
@Suite struct PasteboardQuotaTests {
    // Clients/PasteboardQuota: sparse-writer (a sealed memfd of argv[1] bytes that holds no
    // memory; prints the path and the error name), victim-writer (another app's 10-byte hand-off).


    /// An app named by a desktop entry of its own (its program, a hard link of python under
    /// `$HOME`, is what the entry runs): what a victim app is, and what an attacker can also make.
    static func installedApp(_ f: ServiceFixture, _ program: String, _ id: String) throws -> String {
        let python = try f.pythonNamed(program)
        try f.entry("\(id).desktop", "Name=\(id)\nExec=\(python) %u\nMimeType=x-scheme-handler/quota-test;")
        return python
    }

    @Test func fourExecutablePathsWithSparseGibibytesNoLongerStarveAnApp() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let victim = try Self.installedApp(f, "victim-app", "org.example.Victim")
        var accepted = 0
        for i in 1...4 {
            let r = try await f.runClient("PasteboardQuota/sparse-writer", python: try f.pythonNamed("squatter-\(i)"), [String(2 << 30)])
            #expect(r.stdout.hasSuffix(" no error\n") || r.stdout.hasSuffix(" \(ContractError.quotaExceeded.rawValue)\n"), "\(r.stdout)\(r.stderr)")
            if r.stdout.hasSuffix(" no error\n") { accepted += 1 }
        }
        let hurt = try await f.runClient("PasteboardQuota/victim-writer", python: victim)
        print("MEASURE 4 executable paths × 2 GiB sparse memfds: \(accepted) accepted (\(accepted * 2) GiB charged); another app's 10-byte SetItems: \(hurt.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(accepted == 0, "the paths share 256 MiB (MaxBytesUnidentified)")
        #expect(hurt.stdout == "no error\n", "\(hurt.stdout)\(hurt.stderr)\n\(f.serviceLog)")
        // Within the shared quota they still work: 100 MiB fits once, a second 200 MiB does not.
        let small = try await f.runClient("PasteboardQuota/sparse-writer", python: try f.pythonNamed("squatter-1"), [String(100 << 20)])
        let more = try await f.runClient("PasteboardQuota/sparse-writer", python: try f.pythonNamed("squatter-2"), [String(200 << 20)])
        #expect(small.stdout.hasSuffix(" no error\n") && more.stdout.hasSuffix(" \(ContractError.quotaExceeded.rawValue)\n"), "\(small.stdout)\(more.stdout)\(more.stderr)")
    }

    @Test func sixtyFourExecutablePathsNoLongerBlockCreatePasteboard() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let victim = try Self.installedApp(f, "victim-app", "org.example.Victim")
        let links = try (1...64).map { try f.pythonNamed("flood-\($0)") }
        var made = 0
        // Four at a time (64 python start-ups).
        for batch in stride(from: 0, to: links.count, by: 4) {
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for link in links[batch..<min(batch + 4, links.count)] {
                    group.addTask { Int(try await f.runClient("PasteboardQuota/flood", python: link).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(!counts.contains(-1), "a flood script failed")
            made += counts.reduce(0, +)
        }
        let victimRun = try await f.runClient("PasteboardQuota/victim-writer", python: victim)
        print("MEASURE 64 executable paths × 64 CreatePasteboard: \(made) made (MaxPasteboards 4096); another app's CreatePasteboard: \(victimRun.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(made == 64, "the paths share 64 pasteboards (MaxPasteboardsUnidentified)")
        #expect(victimRun.stdout == "no error\n", "\(victimRun.stdout)\(victimRun.stderr)")
    }

    @Test func atTheGlobalLimitsTheLargestOwnerMakesRoomForANewcomer() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // Apps with entries of their own are what an attacker pays most for (a desktop file
        // each); four of them fill MaxPasteboards (16 here) and MaxBytes (8 GiB, the default).
        try f.writeConfig("[Pasteboards]\nMaxPasteboards=16\n")
        let victim = try Self.installedApp(f, "victim-app", "org.example.Victim")
        let squatters = try (1...4).map { try Self.installedApp(f, "squatter-app-\($0)", "org.example.Squatter\($0)") }
        var paths: [String: [String]] = [:]
        for squatter in squatters {
            let r = try await f.runClient("PasteboardQuota/fill", python: squatter)
            let words = r.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
            #expect(words.count == 6 && words[4...] == ["no", "error"], "\(r.stdout)\(r.stderr)")
            paths[squatter] = Array(words.prefix(4))
        }
        let hurt = try await f.runClient("PasteboardQuota/victim-writer", python: victim)
        #expect(hurt.stdout == "no error\n", "\(hurt.stdout)\(hurt.stderr)\n\(f.serviceLog)")
        // What each squatter has left: one empty pasteboard (the soonest to expire) made room for
        // the victim's, and one 2 GiB one for its 10 bytes.
        var boards = 0, full = 0
        for squatter in squatters {
            let r = try await f.runClient("PasteboardQuota/check", python: squatter, paths[squatter] ?? [])
            let n = r.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(n.count == 2, "\(r.stdout)\(r.stderr)")
            boards += n.first ?? 0
            full += n.last ?? 0
        }
        print("MEASURE 4 apps × (4 pasteboards, 2 GiB) at MaxPasteboards=16, MaxBytes=8 GiB: the newcomer's CreatePasteboard and 10-byte SetItems \(hurt.stdout.trimmingCharacters(in: .whitespacesAndNewlines)); the squatters keep \(boards) pasteboards, \(full) with 2 GiB")
        #expect(boards == 14 && full == 3)
        #expect(f.serviceLog.contains("evicted"), "\(f.serviceLog)")
    }

    @Test func memoryAllocatedPastAMemfdsEndIsCharged() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Pasteboards]\nMaxBytesUnidentified=16777216\n")
        let r = try await f.runClient("PasteboardQuota/padded-memfd", python: try f.pythonNamed("padder"))
        let lines = r.stdout.split(separator: "\n").map(String.init)
        print("MEASURE a 10-byte memfd holding \(lines.first ?? "?") (size, allocated bytes) against a 16 MiB quota: \(lines.dropFirst().first ?? "?")")
        #expect(lines.count == 3, "\(r.stdout)\(r.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix(ContractError.quotaExceeded.rawValue) == true && lines.dropFirst().first?.contains("allocated past its end") == true,
                "\(r.stdout)")
        #expect(lines.last == "no error", "\(r.stdout)")
    }
}
