import Foundation
import Testing
import DBusTestSupport

/// The registry index in `$XDG_CACHE_HOME/schemebridge/` is as writable as `~/.local/share`: a
/// program of the user rewrote the system browser's program in it (checksum recomputed, file
/// owned like the user's own). What runs must still be what the browser's desktop file says.
@Suite struct ForgedIndexTests {
    /// The service's index files (bus activation: `$HOME/.cache/schemebridge`).
    func indexFiles(_ f: ServiceFixture) -> [URL] {
        let dir = f.root.appendingPathComponent(".cache/schemebridge")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasSuffix(".index") }.map { dir.appendingPathComponent($0) }
    }

    /// A fixture with the recorders `browser` and `evilbro` (the attacker's program: as long a path
    /// as the browser's) and a system `browser.desktop` running `browser` for https; `userCopy`:
    /// a `browser.desktop` in the user's data dir running that program.
    func world(userCopy: String? = nil) throws -> ServiceFixture {
        let f = try ServiceFixture()
        let browser = try f.recorder("browser")
        let evil = try f.recorder("evilbro")
        try f.entry("browser.desktop", "Name=Browser\nExec=\(browser) %u\nMimeType=x-scheme-handler/https;", system: true)
        if let userCopy {
            try f.entry("browser.desktop", "Name=My Browser\nExec=\(userCopy == "evilbro" ? evil : browser) %u\nMimeType=x-scheme-handler/https;")
        }
        usleep(300_000)  // older than the index's "changed just now" margin, so the index vouches for it
        return f
    }

    /// Calls `method` for an https URL (starting the service, which writes its index), waits for
    /// the index, stops the service; then, with `forge`, replaces the browser's program path in
    /// the index by the attacker's and recomputes the checksum, as an attacker would.
    func indexThenStop(_ f: ServiceFixture, _ method: String, forge: Bool) async throws -> ProcessResult {
        let reply = try await f.dbusSend(method, "string:https://example.org/")
        #expect(await Tools.eventually { indexFiles(f).count == 1 }, "no index was written")
        if let pid = await f.servicePID() {
            kill(pid, SIGTERM)
            #expect(await Tools.eventually { await f.servicePID() == nil }, "the service did not stop")
        }
        if forge {
            let index = try #require(indexFiles(f).first)
            let original = try Data(contentsOf: index)
            let forged = IndexForgery.replacing(Array("/bin/browser".utf8), with: Array("/bin/evilbro".utf8), in: original)
            #expect(forged != original, "the program path was not found in the index")
            try forged.write(to: index)
            chmod(index.path, 0o600)
        }
        return reply
    }

    func evilRan(_ f: ServiceFixture) -> Bool {
        FileManager.default.fileExists(atPath: f.records.appendingPathComponent("evilbro.argv").path)
    }

    @Test func aForgedIndexDoesNotChooseWhatRuns() async throws {
        let f = try world()
        defer { f.stop() }
        let can = try await indexThenStop(f, "CanOpenURL", forge: true)
        #expect(can.stdout.contains("boolean true"), "\(can.stdout)\(can.stderr)")

        let url = "https://example.org/account?code=1"
        let open = try await f.dbusSend("OpenURL", "string:\(url)")
        #expect(open.status == 0, "\(open.stderr)")
        #expect(await f.recordedArgv("browser") == [url], "the browser's own program did not get the URL")
        #expect(!evilRan(f), "the program written into the index ran")
        let log = f.serviceLog
        #expect(!log.contains("registry index not used"), "the forged index was not even read: \(log)")
        #expect(log.contains("browser.desktop is not what its file says"), "\(log)")
        print("logged: " + (log.split(separator: "\n").first { $0.contains("is not what its file says") } ?? "nothing"))
        // The next open is answered from the files (the index was set aside), without a new warning.
        try? FileManager.default.removeItem(at: f.records.appendingPathComponent("browser.argv"))
        _ = try await f.dbusSend("OpenURL", "string:\(url)")
        #expect(await f.recordedArgv("browser") == [url])
        #expect(f.serviceLog.components(separatedBy: "is not what its file says").count == 2, "\(f.serviceLog)")
    }

    /// A copy in the user's data dir keeps a reserved scheme only when the system entry it masks
    /// runs the same program: the index must not vouch for that either.
    @Test func aForgedIndexDoesNotLetAUserCopyKeepHTTPS() async throws {
        let f = try world(userCopy: "evilbro")
        defer { f.stop() }
        let refused = try await indexThenStop(f, "OpenURL", forge: true)
        #expect(refused.stderr.contains("ReservedScheme"), "\(refused.stdout)\(refused.stderr)")
        let open = try await f.dbusSend("OpenURL", "string:https://example.org/")
        #expect(open.stderr.contains("ReservedScheme"), "\(open.stdout)\(open.stderr)")
        #expect(!evilRan(f), "the user's copy ran for https")
        #expect(!f.serviceLog.contains("registry index not used"), "\(f.serviceLog)")
    }

    /// A menu editor's copy of the browser (same program) keeps https after a start from the
    /// index too (the entries it masks were not known while the registry was served from it).
    @Test func aMenuEditorsCopyKeepsHTTPSAfterAStartFromTheIndex() async throws {
        let f = try world(userCopy: "browser")
        defer { f.stop() }
        let can = try await indexThenStop(f, "CanOpenURL", forge: false)
        #expect(can.stdout.contains("boolean true"), "\(can.stdout)\(can.stderr)")
        let open = try await f.dbusSend("OpenURL", "string:https://example.org/")
        #expect(open.status == 0, "\(open.stderr)")
        #expect(await f.recordedArgv("browser") == ["https://example.org/"])
        #expect(!f.serviceLog.contains("registry index not used"), "\(f.serviceLog)")
    }
}

/// What an attacker does to the index: bytes replaced, then the header's checksum recomputed
/// (the algorithm is in the source; it detects corruption, not forgery).
enum IndexForgery {
    static func replacing(_ old: [UInt8], with new: [UInt8], in data: Data) -> Data {
        precondition(old.count == new.count)
        var bytes = [UInt8](data)
        var i = 48
        while i + old.count <= bytes.count {
            if Array(bytes[i..<(i + old.count)]) == old {
                bytes.replaceSubrange(i..<(i + old.count), with: new)
                i += old.count
            } else {
                i += 1
            }
        }
        let sum = bytes[48...].withUnsafeBytes { checksum($0) }
        withUnsafeBytes(of: sum.littleEndian) { for j in 0..<8 { bytes[24 + j] = $0[j] } }
        return Data(bytes)
    }

    /// The index body's checksum (`IndexChecksum.of`).
    static func checksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
        let words = raw.count / 8
        for i in 0..<words {
            let w = raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h = (h << 29) | (h >> 35)
        }
        var tail: UInt64 = 0
        for j in (words * 8)..<raw.count { tail = (tail << 8) | UInt64(raw[j]) }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
}
