import Foundation
import Testing
import DBusTestSupport

/// The Inboxes' caps hold against a hostile caller: concurrent opens, sparse files, one caller
/// filling an app's Inbox or spreading over several.
@Suite struct InboxQuotaTests {
    /// Clients/InboxQuota/open-file: `OpenFile(argv[1])` with content type `argv[2]`, printing the error name.
    static let openScript = "InboxQuota/open-file"

    /// A fixture whose `org.example.Viewer` opens `application/x-test` and `org.example.Other`
    /// opens `application/x-other` (both stay up until the fixture stops); `config` goes in `[Documents]`.
    static func world(_ config: String) throws -> ServiceFixture {
        let f = try ServiceFixture()
        try f.writeConfig("[Documents]\n" + config + "\n")
        try f.entry("org.example.Viewer.desktop", "Name=Viewer\nExec=\(try f.holdingRecorder("viewer")) %f\nMimeType=application/x-test;", system: true)
        try f.entry("org.example.Other.desktop", "Name=Other\nExec=\(try f.holdingRecorder("other")) %f\nMimeType=application/x-other;", system: true)
        return f
    }

    /// A file of `bytes` bytes, every block written.
    static func denseFile(_ f: ServiceFixture, _ name: String, bytes: Int) throws -> String {
        let path = f.root.appendingPathComponent(name).path
        try Data(repeating: 0x61, count: bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The files of `app`'s Inbox and the bytes they hold (their sizes).
    static func inbox(_ f: ServiceFixture, _ app: String) -> (files: [String], bytes: Int) {
        let dir = DocumentTests.inbox(f, app).path
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        let bytes = files.reduce(0) { $0 + (((try? FileManager.default.attributesOfItem(atPath: dir + "/" + $1)[.size]) as? Int) ?? 0) }
        return (files, bytes)
    }

    func open(_ f: ServiceFixture, _ path: String, type: String = "application/x-test", as python: String = Tools.systemPython) async throws -> String {
        let r = try await f.runClient(Self.openScript, python: python, [path, type])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + (r.status == 0 ? "" : " \(r.stderr)")
    }

    @Test func concurrentOpensNeverPassTheCap() async throws {
        let mib = 1 << 20
        let f = try Self.world("MaxInboxBytes=\(64 * mib)")
        defer { f.stop() }
        let n = 8
        let files = try (0..<n).map { try Self.denseFile(f, "big\($0).bin", bytes: 20 * mib) }
        #expect(try await open(f, try Self.denseFile(f, "warm.bin", bytes: 1)) == "no error")  // starts the service
        let gate = f.root.appendingPathComponent("go").path
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            // Eight callers (one app reads at most two descriptors at once).
            for (i, file) in files.enumerated() {
                let caller = try f.pythonNamed("doc-caller\(i)")
                group.addTask {
                    let r = try await f.runClient(Self.openScript, python: caller, [file, "application/x-test", gate])
                    return r.stdout + (r.status == 0 ? "" : r.stderr)
                }
            }
            let ready = await Tools.eventually {
                ((try? FileManager.default.contentsOfDirectory(atPath: f.root.path)) ?? []).filter { $0.hasPrefix("go.ready.") }.count == n
            }
            #expect(ready, "the callers did not all get ready")
            _ = FileManager.default.createFile(atPath: gate, contents: nil)
            var out: [String] = []
            for try await r in group { out.append(r.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return out
        }
        let held = Self.inbox(f, "org.example.Viewer")
        print("concurrent opens: \(n) × 20 MiB into a 64 MiB Inbox: \(results.filter { $0 == "no error" }.count) placed, "
              + "\(results.filter { $0 == "QuotaExceeded" }.count) QuotaExceeded; the Inbox holds \(held.bytes) bytes in \(held.files.count) files \(results)")
        #expect(held.bytes <= 64 * mib, "the Inbox holds \(held.bytes) bytes: \(results)")
        #expect(results.filter { $0 == "no error" }.count == 3 && results.filter { $0 == "QuotaExceeded" }.count == n - 3, "\(results)")
    }

    @Test func aSparseFileMakesASparseCopy() async throws {
        let f = try Self.world("")
        defer { f.stop() }
        let path = f.root.appendingPathComponent("sparse.img").path
        let gib = Int64(1) << 30
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.write(contentsOf: Data("head".utf8))
        try h.truncate(atOffset: UInt64(gib))
        try h.seek(toOffset: UInt64(gib - 4))
        try h.write(contentsOf: Data("tail".utf8))
        try h.close()
        #expect(try await open(f, path) == "no error")
        let copy = DocumentTests.inbox(f, "org.example.Viewer").appendingPathComponent("sparse.img").path
        var st = stat()
        #expect(stat(copy, &st) == 0)
        print("sparse copy: \(st.st_size) bytes long, \(Int(st.st_blocks) * 512) bytes allocated")
        #expect(Int64(st.st_size) == gib)
        #expect(Int(st.st_blocks) * 512 < 1 << 20, "the copy of a sparse 1 GiB file takes \(Int(st.st_blocks) * 512) bytes")
        let h2 = try FileHandle(forReadingFrom: URL(fileURLWithPath: copy))
        #expect(try h2.read(upToCount: 4) == Data("head".utf8))
        try h2.seek(toOffset: UInt64(gib - 4))
        #expect(try h2.read(upToCount: 4) == Data("tail".utf8))
        try h2.close()
    }

    @Test func oneCallerNeitherFillsAnInboxForLongNorSpreadsPastItsShare() async throws {
        let kib = 1 << 10
        // Copies younger than the retention (20 s here; at most a minute) are never removed to make room.
        let f = try Self.world("MaxInboxBytes=\(1024 * kib)\nRetention=20")
        defer { f.stop() }
        let filler = try f.pythonNamed("doc-filler"), other = try f.pythonNamed("doc-other")
        // Two apps, identified by their entries.
        try f.entry("org.example.Filler.desktop", "Name=Filler\nExec=\(filler)\nNoDisplay=true")
        try f.entry("org.example.Sender.desktop", "Name=Sender\nExec=\(other)\nNoDisplay=true")
        let full = try Self.denseFile(f, "full.bin", bytes: 1024 * kib)
        #expect(try await open(f, full, as: filler) == "no error")
        let small = try Self.denseFile(f, "small.bin", bytes: 100 * kib)
        #expect(try await open(f, small, as: other) == "QuotaExceeded", "the filler's copy is brand new")
        // Once the filler's copy is older than that, the other caller's document makes room.
        var last = ""
        // (Within 50 s: the old service let it in only at its next sweep, a minute after the first.)
        let admitted = try await Tools.eventually(timeout: .seconds(50)) {
            last = try await open(f, small, as: other)
            if last != "no error" { usleep(250_000) }
            return last == "no error"
        }
        #expect(admitted, "the other caller is still locked out: \(last)")
        #expect(Self.inbox(f, "org.example.Viewer").files == ["small.bin"], "\(Self.inbox(f, "org.example.Viewer").files)")

        // The caller is charged too: 700 KiB in one app's Inbox and 700 KiB in another's pass its share.
        let part = try Self.denseFile(f, "part.bin", bytes: 700 * kib)
        #expect(try await open(f, part, as: filler) == "no error")
        #expect(try await open(f, part, type: "application/x-other", as: filler) == "QuotaExceeded")
        #expect(try await open(f, part, type: "application/x-other", as: other) == "no error", "another caller is not charged for it")
    }
}
