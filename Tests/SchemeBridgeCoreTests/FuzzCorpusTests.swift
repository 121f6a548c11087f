import Foundation
import Testing
import SchemeBridgeCore

/// Replays every input the fuzzers kept (`Fuzz/corpus/<target>/`) through the same checks the
/// fuzzers run, so what they found once stays fixed. `make fuzz` grows the corpus.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    func inputs(_ name: String) throws -> [[UInt8]] {
        let dir = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        return try files.map { [UInt8](try Data(contentsOf: dir.appendingPathComponent($0))) }
    }

    @Test func urlCorpus() throws {
        let all = try inputs("url")
        #expect(all.count >= 4)
        for bytes in all { FuzzChecks.url(bytes) }
    }

    @Test func keyFileCorpus() throws {
        let all = try inputs("keyfile")
        #expect(all.count >= 2)
        for bytes in all { FuzzChecks.keyFile(bytes) }
    }

    @Test func execCorpus() throws {
        let all = try inputs("exec")
        #expect(all.count >= 4)
        for bytes in all { FuzzChecks.exec(bytes) }
    }
}
