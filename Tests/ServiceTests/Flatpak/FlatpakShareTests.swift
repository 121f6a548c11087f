import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 26, Share1 and Flatpak apps, with real `flatpak run`: a sandboxed app shares through
/// its proxy (`share-client`, libdbus, in the test runtime) and is the sender by its Flatpak id;
/// it cannot enumerate targets (``SandboxedCallerRule``); a sandboxed target (org.test.Handler's
/// action `share`, `share.sh`) gets files through the document portal, read-only, and data
/// through its pasteboard, read from inside its sandbox.
@Suite struct FlatpakShareTests {
    /// The text the shares carry.
    static let text = "a line of text"

    /// A file in `appID`'s own data folder (visible inside its sandbox at the same path).
    static func appFile(_ w: FlatpakFixture, _ appID: String, _ name: String, _ contents: String) throws -> String {
        let dir = w.service.root.appendingPathComponent(".var/app/\(appID)/data")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent(name)
        try contents.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The text of the `ay` gdbus printed (`([byte 0x61, …],)` or `(b'…',)`).
    static func gdbusBytes(_ printed: String) -> String? {
        if let start = printed.range(of: "b'"), let end = printed.range(of: "'", range: start.upperBound..<printed.endIndex) {
            return String(printed[start.upperBound..<end.lowerBound])
        }
        let bytes = printed.components(separatedBy: "0x").dropFirst().compactMap { UInt8($0.prefix(2), radix: 16) }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// `share-client ARGS…` inside org.test.Caller's sandbox: its output lines.
    static func sandboxedShare(_ w: FlatpakFixture, _ arguments: [String]) async throws -> String {
        let r = try await w.flatpak(["run", "--command=share-client", "org.test.Caller"] + arguments)
        return r.stdout + r.stderr
    }

    @Test func aSandboxedAppSharesAFileAndATextAsItsFlatpakID() async throws {
        let w = try await FlatpakFixture()
        defer { w.stop() }
        let program = try ShareTests.target(w.service, "notes")
        try ShareTests.entry(w.service, "notes.desktop", types: "text/plain;", program: program)
        let file = try Self.appFile(w, "org.test.Caller", "list.txt", "milk\neggs\n")
        let out = try await Self.sandboxedShare(w, ["--target", "notes.desktop:share", "--file", file, "--text", Self.text])
        #expect(out.contains("code 0\n") && out.contains("target=notes.desktop:share\n"), "\(out)\n\(w.service.serviceLog)")
        let argv = try #require(await w.service.recordedArgv("notes"), "\(out)")
        #expect(argv.count == 1 && argv[0].hasPrefix(w.service.dataHome.path + "/schemebridge/inbox/notes/"), "\(argv)")
        #expect(argv.first.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } == "milk\neggs\n")
        #expect(w.service.recordedEnv("notes").contains("source=org.test.Caller\n"), "\(w.service.recordedEnv("notes"))")
        let board = ShareTests.json((try? String(contentsOf: w.service.records.appendingPathComponent("notes.board"), encoding: .utf8)) ?? "")
        #expect(board["items"] as? [String] == [Self.text], "\(board)")
    }

    /// `ShareTargets` from inside the sandbox names no app and no device (the sheet, outside,
    /// lists them for the user); the same call from outside lists the target. A share to a
    /// named target still works: that is what the call needs.
    @Test func aSandboxedCallerCannotEnumerateShareTargets() async throws {
        let w = try await FlatpakFixture()
        defer { w.stop() }
        try ShareTests.entry(w.service, "notes.desktop", types: "text/plain;", program: try ShareTests.target(w.service, "notes"))
        let outside = try await Tools.run(["gdbus", "call", "--address", w.service.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                           "--method", "\(ShareContract.interface.rawValue).ShareTargets", "['text/plain']"])
        #expect(outside.stdout.contains("notes.desktop:share"), "\(outside.stdout) \(outside.stderr)")
        let inside = try await w.sandboxedCall("org.test.Caller", "ShareTargets", ["['text/plain']"], interface: ShareContract.interface.rawValue)
        #expect(inside.status == 0, "\(inside.stderr)")
        #expect(!inside.stdout.contains("notes.desktop") && !inside.stdout.contains("'app')") && !inside.stdout.contains("'device')"),
                "\(inside.stdout)")
        let shared = try await Self.sandboxedShare(w, ["--target", "notes.desktop:share", "--text", Self.text])
        #expect(shared.contains("code 0\n"), "\(shared)\n\(w.service.serviceLog)")
    }

    /// A sandboxed target: the file reaches it as a document portal path granted read-only to
    /// its app id (no other app sees it), the text through its pasteboard, read from inside
    /// its sandbox through its proxy.
    @Test func aSandboxedTargetGetsTheFileThroughTheDocumentPortalAndTheDataThroughItsPasteboard() async throws {
        let w = try await FlatpakFixture()
        defer { w.stop() }
        try w.installExportedEntry("org.test.Handler")
        let file = w.service.root.appendingPathComponent("notes.txt")
        try "the user's notes\n".write(to: file, atomically: true, encoding: .utf8)
        let out = try await ShareTests.share(w.service, #"[{"file": "\#(file.path)"}, {"text": "\#(Self.text)"}]"#,
                                             #"{"target": "org.test.Handler.desktop:share"}"#)
        #expect(ShareTests.responses(out).map { $0["code"] as? Int } == [0], "\(out)\n\(w.service.serviceLog)")
        let argvText = await w.appRecord("org.test.Handler", "share-argv") ?? ""
        let argv = argvText.split(separator: "\0").map(String.init)
        let doc = try #require(FlatpakDocumentTests.portalDocument(argv), "\(argv) \(out)\n\(w.service.serviceLog)")
        #expect(argv.count == 1 && doc.path.hasSuffix("/notes.txt"), "\(argv)")
        #expect(await w.appRecord("org.test.Handler", "share-read.out") == "the user's notes\n")
        let written = await w.appRecord("org.test.Handler", "share-write.out")
        #expect(written == "denied \(doc.path)\n", "a shared file is read-only in the sandbox: \(written ?? "")")
        #expect(try String(contentsOf: file, encoding: .utf8) == "the user's notes\n")
        let inbox = w.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.Handler/notes.txt").path
        #expect((try? String(contentsOfFile: inbox, encoding: .utf8)) == "the user's notes\n", "the Inbox copy behind the portal path is unchanged")
        let env = await w.appRecord("org.test.Handler", "share-env") ?? ""
        #expect(env.contains("source=") && !env.contains("pasteboard=\n"), "\(env)")
        let board = await w.appRecord("org.test.Handler", "share-board.out") ?? ""
        let boardErr = await w.appRecord("org.test.Handler", "share-board.err", timeout: .seconds(1)) ?? ""
        #expect(Self.gdbusBytes(board) == Self.text, "\(board) \(boardErr)")
        // No other app sees the document.
        let other = try await w.flatpak(["run", "--command=cat", "org.test.Caller", doc.path])
        #expect(other.status != 0 && other.stderr.contains("No such file"), "\(other.stdout) \(other.stderr)")
    }
}
