import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `schemebridge open --pasteboard NAME URL`: the URL's handler is granted read access before it
/// starts, and reads with `schemebridge pasteboard read` (with and without `--wait`).
@Suite struct PasteboardOpenCLITests {
    /// A handler of `readpb:` (`org.example.Reader`): reads the pasteboard named in the URL's
    /// fragment with the CLI into `records/reader-<n>.out`, then its status into `.status`
    /// (written whole under another name, then renamed: the test waits for the name);
    /// opened with a reply request, it answers with the byte count.
    static func installReader(_ w: PasteboardCLIWorld) throws -> String {
        let path = w.f.bin.appendingPathComponent("reader").path
        let records = w.f.records.path
        try """
            #!/bin/sh
            n=$(ls '\(records)' | grep -c '\\.status$')
            schemebridge pasteboard read "${1#*#}" > '\(records)'/reader-$n.out
            status=$?
            if [ -n "$SCHEMEBRIDGE_REPLY_TOKEN" ]; then schemebridge reply status=$status bytes=$(wc -c < '\(records)'/reader-$n.out); fi
            echo $status > '\(records)'/reader-$n.status.part
            mv '\(records)'/reader-$n.status.part '\(records)'/reader-$n.status
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        try w.f.entry("org.example.Reader.desktop", "Name=Reader\nExec=\(path) %u\nMimeType=x-scheme-handler/readpb;")
        return path
    }

    /// What the reader's run `n` read and its exit status, once it has finished.
    static func readerRun(_ w: PasteboardCLIWorld, _ n: Int) async -> (status: String, output: String)? {
        let status = w.f.records.appendingPathComponent("reader-\(n).status")
        guard await Tools.eventually({ FileManager.default.fileExists(atPath: status.path) }) else { return nil }
        let output = (try? String(contentsOf: w.f.records.appendingPathComponent("reader-\(n).out"), encoding: .utf8)) ?? ""
        return ((try? String(contentsOf: status, encoding: .utf8)) ?? "", output)
    }

    @Test func openGrantsTheHandlerWhichReadsWithTheCLI() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let reader = try Self.installReader(w)
        let note = try w.file("note.txt", "for the reader\n")
        let name = try await w.pasteboard(w.owner, "create", "--persistent").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await w.pasteboard(w.owner, "write", name, "text/plain", note).status == 0)

        // Before the owner opens the URL with it, the reader app cannot see the pasteboard.
        let early = try await Tools.run([reader, "readpb://show#\(name)"], environment: w.environment)
        #expect(early.status == 0, "\(early.stderr)")
        #expect(await Self.readerRun(w, 0)?.status == "2\n")

        // The owner opens the URL with the pasteboard: the handler is granted before it starts.
        let opened = try await w.run(w.owner, ["open", "--pasteboard", name, "readpb://show#\(name)"])
        #expect(opened.status == 0, "\(opened.status) \(opened.stderr)")
        let run = await Self.readerRun(w, 1)
        #expect(run?.status == "0\n" && run?.output == "for the reader\n", "\(String(describing: run))")

        // With --wait: the handler reads, then replies; the owner gets the reply.
        let waited = try await w.run(w.owner, ["open", "--wait", "--pasteboard", name, "readpb://again#\(name)"])
        #expect(waited.status == 0 && waited.stdout == "status=success\nbytes=15\nstatus=0\n", "\(waited.status) \(waited.stdout)\(waited.stderr)")
        #expect(await Self.readerRun(w, 2)?.output == "for the reader\n")

        // Another app cannot hand over a pasteboard it cannot see; nothing starts.
        let stolen = try await w.run(w.other, ["open", "--pasteboard", name, "readpb://stolen#\(name)"])
        #expect(stolen.status == 2 && stolen.stderr.contains("no such pasteboard"), "\(stolen.status) \(stolen.stderr)")
        let missing = try await w.run(w.owner, ["open", "--pasteboard", "no-such-board", "readpb://x#no-such-board"])
        #expect(missing.status == 2, "\(missing.status) \(missing.stderr)")
        let runs = try FileManager.default.contentsOfDirectory(atPath: w.f.records.path).filter { $0.hasSuffix(".status") }
        #expect(runs.count == 3, "\(runs)")
    }
}
