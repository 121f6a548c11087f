import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 26, items 2 and 3: documents into a sandbox. The handler is the real org.test.Handler
/// Flatpak, started from the desktop entry flatpak exported (`Exec=… --file-forwarding
/// org.test.Handler @@u %U @@`); the document reaches it through the real xdg-document-portal.
/// The handler appends each document's bytes to `read.out` and tries to write it (`write.out`).
@Suite struct FlatpakDocumentTests {
    /// A fixture whose text/plain handler is the sandboxed app, and a file of the user's.
    static func world() async throws -> (FlatpakFixture, URL) {
        let w = try await FlatpakFixture()
        try w.installExportedEntry("org.test.Handler")
        let file = w.service.root.appendingPathComponent("notes.txt")
        try "the user's notes\n".write(to: file, atomically: true, encoding: .utf8)
        return (w, file)
    }

    /// `OpenFile` from an unsandboxed app: `access` r or rw, `mode` copy, in-place or "".
    static func openFile(_ w: FlatpakFixture, _ file: URL, access: String, mode: String, handler: String = "") async throws -> String {
        let r = try await Tools.run(Clients.command("OpenMode/open-file", [w.service.bus.address, file.path, access, mode, handler]), environment: Clients.serviceNames)
        return r.stdout + r.stderr
    }

    /// The document the handler was given, as a portal path: `/run/user/UID/doc/ID/NAME`.
    static func portalDocument(_ argv: [String]?) -> (id: String, path: String)? {
        guard let arg = argv?.first else { return nil }
        let path = arg.hasPrefix("file://") ? String(arg.dropFirst(7)) : arg
        let prefix = FlatpakFixture.documents + "/"
        guard path.hasPrefix(prefix), let id = path.dropFirst(prefix.count).split(separator: "/").first else { return nil }
        return (String(id), path)
    }

    /// Copy (the default): the Inbox copy, granted read-only to the app, is what it reads.
    @Test func aCopyReachesTheSandboxedHandlerThroughTheDocumentPortal() async throws {
        let (w, file) = try await Self.world()
        defer { w.stop() }
        let out = try await Self.openFile(w, file, access: "rw", mode: "")
        #expect(out.contains("org.test.Handler.desktop"), "\(out)\n\(w.service.serviceLog)")
        let argv = await w.handlerArgv()
        let doc = try #require(Self.portalDocument(argv), "\(argv ?? []) \(out)\n\(w.service.serviceLog)")
        #expect(doc.path.hasSuffix("/notes.txt"))
        #expect(await w.appRecord("org.test.Handler", "read.out") == "the user's notes\n")
        #expect(await w.appRecord("org.test.Handler", "write.out") == "denied \(doc.path)\n", "a copy is read-only in the sandbox")
        #expect(try String(contentsOf: file, encoding: .utf8) == "the user's notes\n")
        // The Inbox copy exists outside; no other app sees the document.
        let inbox = w.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.Handler/notes.txt").path
        #expect((try? String(contentsOfFile: inbox, encoding: .utf8)) == "the user's notes\n")
        let other = try await w.flatpak(["run", "--command=cat", "org.test.Caller", doc.path])
        #expect(other.status != 0 && other.stderr.contains("No such file"), "\(other.stdout) \(other.stderr)")
    }

    /// In place from a writable descriptor: the app edits the user's file itself, through the
    /// portal; no copy is made anywhere.
    @Test func inPlaceWithAWritableDescriptorTheSandboxedHandlerSavesTheUsersFile() async throws {
        let (w, file) = try await Self.world()
        defer { w.stop() }
        let out = try await Self.openFile(w, file, access: "rw", mode: "in-place")
        let argv = await w.handlerArgv()
        let doc = try #require(Self.portalDocument(argv), "\(argv ?? []) \(out)\n\(w.service.serviceLog)")
        #expect(doc.path.hasSuffix("/notes.txt"))
        #expect(await w.appRecord("org.test.Handler", "read.out") == "the user's notes\n")
        #expect(await w.appRecord("org.test.Handler", "write.out") == "wrote \(doc.path)\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == "the user's notes\nwritten in the sandbox\n")
        #expect(!FileManager.default.fileExists(atPath: w.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.Handler").path),
                "in place makes no Inbox copy")
        let other = try await w.flatpak(["run", "--command=cat", "org.test.Caller", doc.path])
        #expect(other.status != 0 && other.stderr.contains("No such file"), "\(other.stdout) \(other.stderr)")
    }

    /// In place from a read-only descriptor: the app reads the user's file and cannot write it
    /// (the portal grants read only). Before, flatpak's own `@@u` forwarding granted read+write.
    @Test func inPlaceWithAReadOnlyDescriptorTheSandboxedHandlerCannotWrite() async throws {
        let (w, file) = try await Self.world()
        defer { w.stop() }
        let out = try await Self.openFile(w, file, access: "r", mode: "in-place")
        let argv = await w.handlerArgv()
        let doc = try #require(Self.portalDocument(argv), "\(argv ?? []) \(out)\n\(w.service.serviceLog)")
        #expect(await w.appRecord("org.test.Handler", "read.out") == "the user's notes\n")
        #expect(await w.appRecord("org.test.Handler", "write.out") == "denied \(doc.path)\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == "the user's notes\n")
    }

    /// `schemebridge open FILE` opens in place, as `xdg-open` does: a sandboxed editor can save
    /// the user's file (the command opened it read-write, since the user may write it).
    @Test func theCommandLineLetsASandboxedEditorSaveTheUsersFile() async throws {
        let (w, file) = try await Self.world()
        defer { w.stop() }
        let r = try await DocumentTests.cli(w.service, "open", file.path)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let doc = try #require(Self.portalDocument(await w.handlerArgv()), "\(w.service.serviceLog)")
        #expect(await w.appRecord("org.test.Handler", "write.out") == "wrote \(doc.path)\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == "the user's notes\nwritten in the sandbox\n")
    }
}
