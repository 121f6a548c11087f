import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `schemebridge pasteboard …` as scripts run it: installed apps run the CLI, the service names the
/// app as the caller, data goes by descriptor both ways.
@Suite struct PasteboardCLITests {
    @Test func createWriteReadTypesGrantRevokeDelete() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let plain = try w.file("note.txt", "milk & eggs\n"), html = try w.file("note.html", "<b>milk</b> &amp; eggs\n")
        let png = Built.packageRoot.appendingPathComponent("desktop/demo/launch-images/org.example.TodoList/Default-todolist.png").path

        // create: a unique name by default; a name of one's own twice is the same pasteboard.
        let unique = try await w.pasteboard(w.owner, "create")
        #expect(unique.status == 0 && unique.stdout.hasPrefix("pasteboard-") && unique.stderr.isEmpty, "\(unique.status) \(unique.stdout)\(unique.stderr)")
        let named = try await w.pasteboard(w.owner, "create", "--json", "--expires", "3600", "groceries")
        #expect(named.status == 0 && named.stdout.hasPrefix("{\"name\":\"groceries\",\"path\":\"\(Contract.pasteboardPathPrefix)/"), "\(named.stdout)\(named.stderr)")
        let again = try await w.pasteboard(w.owner, "create", "--json", "groceries")
        #expect(again.stdout == named.stdout, "\(again.stdout) vs \(named.stdout)")

        // write: two items in one SetItems, the first in two types; later runs of the app own it.
        let wrote = try await w.pasteboard(w.owner, "write", "--json", "groceries", "text/plain", plain, "text/html", html, "+", "image/png", png)
        #expect(wrote.status == 0 && wrote.stdout == "{\"name\":\"groceries\",\"change_count\":1}\n", "\(wrote.status) \(wrote.stdout)\(wrote.stderr)")
        let types = try await w.pasteboard(w.owner, "types", "groceries")
        #expect(types.stdout == "0\ttext/plain\n0\ttext/html\n1\timage/png\n", "\(types.stdout)\(types.stderr)")
        let typesJSON = try await w.pasteboard(w.owner, "types", "--json", "groceries")
        #expect(typesJSON.stdout == "{\"name\":\"groceries\",\"items\":[[\"text/plain\",\"text/html\"],[\"image/png\"]]}\n", "\(typesJSON.stdout)")

        // read: the first type of item 0 by default; a type; an item; binary data byte for byte.
        #expect(try await w.pasteboard(w.owner, "read", "groceries").stdout == "milk & eggs\n")
        #expect(try await w.pasteboard(w.owner, "read", "groceries", "text/html").stdout == "<b>milk</b> &amp; eggs\n")
        let out = w.f.root.appendingPathComponent("read.png").path
        let image = try await w.pasteboard(w.owner, "read", "--item", "1", "groceries", stdout: out)
        #expect(image.status == 0, "\(image.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: out, andPath: png))
        // By its object path too.
        let path = String(named.stdout.split(separator: "\"")[7])
        #expect(try await w.pasteboard(w.owner, "read", path).stdout == "milk & eggs\n")

        // Nobody else learns it exists: another app, and a process that is no app at all.
        let stranger = try await w.pasteboard(w.other, "read", "groceries")
        #expect(stranger.status == 2 && stranger.stdout.isEmpty && stranger.stderr.contains("no such pasteboard"), "\(stranger.status) \(stranger.stderr)")
        let guessed = try await w.pasteboard(w.other, "types", unique.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(guessed.status == 2, "\(guessed.status) \(guessed.stderr)")
        let unidentified = try await Tools.run([w.cli, "pasteboard", "read", "groceries"], environment: w.environment)
        #expect(unidentified.status == 2 && unidentified.stderr.contains("no such pasteboard"), "\(unidentified.status) \(unidentified.stderr)")

        // grant lets the other app read (and delete); revoke takes it back.
        let granted = try await w.pasteboard(w.owner, "grant", "groceries", "org.example.Other", "org.example.Nobody.*")
        #expect(granted.status == 0 && granted.stdout.isEmpty, "\(granted.status) \(granted.stderr)")
        #expect(try await w.pasteboard(w.other, "read", "groceries", "text/html").stdout == "<b>milk</b> &amp; eggs\n")
        let notOwner = try await w.pasteboard(w.other, "write", "groceries", "text/plain", plain)
        #expect(notOwner.status == 4 && notOwner.stderr.contains("owner"), "a grantee may not write: \(notOwner.status) \(notOwner.stderr)")
        let revoked = try await w.pasteboard(w.owner, "revoke", "groceries", "org.example.Other")
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(try await w.pasteboard(w.other, "read", "groceries").status == 2)
        _ = try await w.pasteboard(w.owner, "grant", "groceries", "org.example.*")
        let deleted = try await w.pasteboard(w.other, "delete", "groceries")
        #expect(deleted.status == 0, "a grantee may delete: \(deleted.status) \(deleted.stderr)")
        let gone = try await w.pasteboard(w.owner, "read", "groceries")
        #expect(gone.status == 2 && gone.stderr.contains("cannot read pasteboard 'groceries': no such pasteboard"), "\(gone.status) \(gone.stderr)")
    }

    /// Issue 27, item 5: `handlers` prints desktop ids with `.desktop`; `grant` and `revoke` take
    /// them as they are printed (before, `org.example.Other.desktop` silently matched no app).
    @Test func grantAndRevokeTakeDesktopIDsWithTheirSuffix() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let plain = try w.file("note.txt", "for the other app\n")
        #expect(try await w.pasteboard(w.owner, "create", "shared").status == 0)
        #expect(try await w.pasteboard(w.owner, "write", "shared", "text/plain", plain).status == 0)
        let granted = try await w.pasteboard(w.owner, "grant", "shared", "org.example.Other.desktop")
        #expect(granted.status == 0, "\(granted.stderr)")
        let read = try await w.pasteboard(w.other, "read", "shared")
        #expect(read.status == 0 && read.stdout == "for the other app\n", "\(read.status) \(read.stderr)")
        let revoked = try await w.pasteboard(w.owner, "revoke", "shared", "org.example.Other.desktop")
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(try await w.pasteboard(w.other, "read", "shared").status == 2)
    }

    @Test func errorsPrintTheServicesMessageWithTheirExitStatus() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let plain = try w.file("note.txt", "x")
        #expect(try await w.pasteboard(w.owner, "create", "mine").status == 0)
        _ = try await w.pasteboard(w.owner, "write", "mine", "text/plain", plain)
        // 1: what the service calls invalid arguments, and what the command line gets wrong.
        let notAType = try await w.pasteboard(w.owner, "write", "mine", "plain", plain)
        #expect(notAType.status == 1 && notAType.stderr.contains("'plain' is not a MIME type"), "\(notAType.status) \(notAType.stderr)")
        let twice = try await w.pasteboard(w.owner, "write", "mine", "text/plain", "-", "text/html")
        #expect(twice.status == 1 && twice.stderr.contains("standard input can be read once"), "\(twice.status) \(twice.stderr)")
        let trailing = try await w.pasteboard(w.owner, "write", "mine", "text/plain", plain, "+")
        #expect(trailing.status == 1, "\(trailing.status) \(trailing.stderr)")
        // 16 values at most (descriptors a message); 16 items of one type each are fine.
        let sixteen = (0..<16).flatMap { i in (i == 0 ? [] : ["+"]) + ["text/x-n\(i)", plain] }
        #expect(try await w.pasteboard(w.owner, "create", "many").status == 0)
        let many = try await w.run(w.owner, ["pasteboard", "write", "many"] + sixteen)
        #expect(many.status == 0, "\(many.status) \(many.stderr)")
        #expect(try await w.pasteboard(w.owner, "types", "many").stdout.split(separator: "\n").count == 16)
        let tooMany = try await w.run(w.owner, ["pasteboard", "write", "many"] + sixteen + ["+", "text/x-17", plain])
        #expect(tooMany.status == 1 && tooMany.stderr.contains("at most 16"), "\(tooMany.status) \(tooMany.stderr)")
        let zero = try await w.pasteboard(w.owner, "create", "--expires", "0")
        #expect(zero.status == 1, "\(zero.status) \(zero.stderr)")
        // 2: no such pasteboard, item, type, or file.
        let noType = try await w.pasteboard(w.owner, "read", "mine", "image/png")
        #expect(noType.status == 2 && noType.stderr.contains("has no 'image/png' data"), "\(noType.status) \(noType.stderr)")
        let noItem = try await w.pasteboard(w.owner, "read", "--item", "3", "mine")
        #expect(noItem.status == 2 && noItem.stderr.contains("no item 3"), "\(noItem.status) \(noItem.stderr)")
        let noFile = try await w.pasteboard(w.owner, "write", "mine", "text/plain", w.f.root.appendingPathComponent("missing").path)
        #expect(noFile.status == 2 && noFile.stderr.contains("No such file"), "\(noFile.status) \(noFile.stderr)")
        let noBoard = try await w.pasteboard(w.owner, "write", "nothing-here", "text/plain", plain)
        #expect(noBoard.status == 2 && noBoard.stderr.contains("no such pasteboard"), "\(noBoard.status) \(noBoard.stderr)")
        // 4: a FILE that cannot be read (a directory); what was there is still there.
        let directory = try await w.pasteboard(w.owner, "write", "mine", "text/plain", w.f.root.path)
        #expect(directory.status == 4 && directory.stderr.contains("Is a directory"), "\(directory.status) \(directory.stderr)")
        #expect(try await w.pasteboard(w.owner, "read", "mine").stdout == "x")
        // 3: no service on the bus.
        let bare = try PrivateBus()
        defer { bare.stop() }
        let noService = try await Tools.run([w.owner, w.cli, "pasteboard", "create", "--address", bare.address], environment: w.environment)
        #expect(noService.status == 3 && noService.stderr.contains("not available"), "\(noService.status) \(noService.stderr)")
    }

    @Test func writeReadsStandardInputAnd200MiBRoundTripByDescriptor() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let name = try await w.pasteboard(w.owner, "create", "--persistent").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(name.hasPrefix("pasteboard-"))

        // Standard input: `-`, or a last TYPE without FILE.
        let dash = try await Tools.run([w.owner, w.cli, "pasteboard", "write", name, "text/plain", "-"], environment: w.environment, stdin: "from stdin\n")
        #expect(dash.status == 0, "\(dash.stderr)")
        #expect(try await w.pasteboard(w.owner, "read", name).stdout == "from stdin\n")
        let bare = try await Tools.run([w.owner, w.cli, "pasteboard", "write", name, "text/csv"], environment: w.environment, stdin: "a,b\n1,2\n")
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(try await w.pasteboard(w.owner, "read", name, "text/csv").stdout == "a,b\n1,2\n")

        // 200 MiB, each MiB different, from a file and back into a file and through a pipe; both
        // ends copy inside the kernel, the service keeps the sealed memfd (and a file on disk).
        let big = w.f.root.appendingPathComponent("big.bin").path
        try Self.writePattern(to: big, mebibytes: 200)
        let expected = try await PasteboardCLIWorld.sha256(big)
        let wrote = try await w.pasteboard(w.owner, "write", name, "application/octet-stream", big)
        #expect(wrote.status == 0, "\(wrote.stderr)")
        try FileManager.default.removeItem(atPath: big)
        let copy = w.f.root.appendingPathComponent("copy.bin").path
        let read = try await w.pasteboard(w.owner, "read", name, stdout: copy)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try await PasteboardCLIWorld.sha256(copy) == expected)
        try FileManager.default.removeItem(atPath: copy)
        let piped = try await Tools.run([w.owner, "sh", "-c", "\"$0\" pasteboard read \"$1\" | sha256sum", w.cli, name], environment: w.environment)
        #expect(piped.status == 0 && piped.stdout.hasPrefix(expected), "\(piped.stdout)\(piped.stderr)")
        // From standard input (a file there: sendfile; a pipe: splice).
        let fromPipe = try await Tools.run([w.owner, "sh", "-c", "head -c 3000000 /dev/zero | \"$0\" pasteboard write \"$1\" application/octet-stream", w.cli, name],
                                           environment: w.environment)
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        #expect(try await w.pasteboard(w.owner, "read", name, stdout: copy).status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) == 3_000_000)
    }

    /// `mebibytes` MiB of pseudo-random bytes, each MiB different (a bad offset cannot go unseen).
    static func writePattern(to path: String, mebibytes: Int) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<mebibytes {
            var chunk = [UInt64](repeating: 0, count: (1 << 20) / 8)
            for i in chunk.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                chunk[i] = state
            }
            try handle.write(contentsOf: chunk.withUnsafeBytes { Data($0) })
        }
    }
}
