import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 26, item 3: `OpenFile`'s `mode` with unsandboxed handlers, and `schemebridge open FILE`
/// in place (as `xdg-open`) or `--copy`. (Sandboxed handlers: FlatpakDocumentTests.)
@Suite struct OpenModeTests {
    static func world() throws -> (ServiceFixture, URL) {
        let f = try ServiceFixture()
        try f.entry("org.example.Editor.desktop", "Name=Editor\nExec=\(try f.recorder("editor")) %f\nMimeType=text/plain;")
        let file = f.root.appendingPathComponent("draft notes.txt")
        try "draft\n".write(to: file, atomically: true, encoding: .utf8)
        return (f, file)
    }

    static func inboxes(_ f: ServiceFixture) -> URL { f.dataHome.appendingPathComponent("schemebridge/inbox") }

    @Test func theCommandLineOpensAFileInPlaceAsXdgOpenDoes() async throws {
        let (f, file) = try Self.world()
        defer { f.stop() }
        let r = try await DocumentTests.cli(f, "open", "--json", file.path)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(await f.recordedArgv("editor") == [file.path])
        #expect(r.stdout.contains("\"path\":\"\(file.path)\""), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: Self.inboxes(f).path), "no copy anywhere")
    }

    @Test func copyGivesTheInboxCopy() async throws {
        let (f, file) = try Self.world()
        defer { f.stop() }
        let r = try await DocumentTests.cli(f, "open", "--copy", file.path)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let copy = DocumentTests.inbox(f, "org.example.Editor").appendingPathComponent("draft notes.txt").path
        #expect(await f.recordedArgv("editor") == [copy])
    }

    /// `OpenFile` without `mode` is a copy (app to app, as before); `in-place` gives the path.
    @Test func overTheBusCopyIsTheDefaultAndInPlaceGivesThePath() async throws {
        let (f, file) = try Self.world()
        defer { f.stop() }
        func open(_ mode: String) async throws -> String {
            let r = try await Tools.run(Clients.command("OpenMode/open-file", [f.bus.address, file.path, "r", mode, ""]), environment: Clients.serviceNames)
            return r.stdout + r.stderr
        }
        let copied = try await open("")
        let copy = DocumentTests.inbox(f, "org.example.Editor").appendingPathComponent("draft notes.txt").path
        #expect(copied.contains(copy), "\(copied)")
        #expect(await f.recordedArgv("editor") == [copy])
        try FileManager.default.removeItem(at: f.records.appendingPathComponent("editor.argv"))
        let inPlace = try await open("in-place")
        #expect(inPlace.contains("\"path\": \"\(file.path)\""), "\(inPlace)")
        #expect(await f.recordedArgv("editor") == [file.path])
        let bad = try await open("move")
        #expect(bad.contains("org.freedesktop.DBus.Error.InvalidArgs") && bad.contains("mode"), "\(bad)")
    }

    /// A descriptor whose file no longer has a path (deleted after it was opened) cannot be
    /// opened in place: a clear error, and a copy still works.
    /// Any file name the kernel allows (issue 35, item 7): `photo-\xE9t\xE9.png` (Latin-1, not
    /// UTF-8) given to `schemebridge open` reaches the handler's argv as those very bytes in place;
    /// with `--copy` the handler gets the Inbox copy's path, the copy named with those bytes too.
    @Test func aFileNameThatIsNotUTF8ReachesTheHandlerAsItsBytes() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Viewer.desktop", "Name=Viewer\nExec=\(try f.recorder("viewer")) %f\nMimeType=image/png;")
        let name: [UInt8] = Array("photo-".utf8) + [0xE9] + Array("t".utf8) + [0xE9] + Array(".png".utf8)
        let path = Array(f.root.path.utf8) + [UInt8(ascii: "/")] + name
        let content: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 64)
        let fd = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) } }
        #expect(fd >= 0)
        #expect(content.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == content.count)
        close(fd)
        // The shell makes the argument's bytes (argv of Swift programs is text).
        func openArgument(_ options: [String]) async throws -> ProcessResult {
            try await Tools.run(["/bin/sh", "-c", #"cli=$1; dir=$2; shift 2; exec "$cli" open "$@" "$(printf '%s/photo-\351t\351.png' "$dir")""#, "sh",
                                 try Built.executable("schemebridge"), f.root.path] + options + ["--address", f.bus.address],
                                environment: ["XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
        }
        let argvFile = f.records.appendingPathComponent("viewer.argv")
        func argv() async -> [UInt8] {
            _ = await Tools.eventually { FileManager.default.fileExists(atPath: argvFile.path) }
            return ((try? Data(contentsOf: argvFile)).map { Array($0) } ?? [])
        }
        let inPlace = try await openArgument([])
        #expect(inPlace.status == 0, "\(inPlace.stdout)\(inPlace.stderr)")
        if inPlace.status == 0 { #expect(await argv() == path + [0], "the handler's argv is the file's path, byte for byte") }
        try? FileManager.default.removeItem(at: argvFile)

        let copied = try await openArgument(["--copy"])
        try #require(copied.status == 0, "\(copied.stdout)\(copied.stderr)")
        let copy = Array((DocumentTests.inbox(f, "org.example.Viewer").path + "/").utf8) + name
        #expect(await argv() == copy + [0], "the handler's argv is the Inbox copy's path, the file's name byte for byte")
        let copyFD = (copy + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_RDONLY) } }
        #expect(copyFD >= 0)
        var read = [UInt8](repeating: 0, count: content.count + 1)
        #expect(read.withUnsafeMutableBytes { Glibc.read(copyFD, $0.baseAddress, $0.count) } == content.count && Array(read.prefix(content.count)) == content)
        close(copyFD)
    }

    @Test func inPlaceNeedsAPathThatStillNamesTheFile() async throws {
        let (f, file) = try Self.world()
        defer { f.stop() }
        let r = try await Tools.run(Clients.command("OpenMode/open-deleted", [f.bus.address, file.path]), environment: Clients.serviceNames)
        #expect(r.stdout.contains("in-place org.freedesktop.DBus.Error.InvalidArgs") && r.stdout.contains("mode copy"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("copy \(DocumentTests.inbox(f, "org.example.Editor").path)/draft notes.txt"), "\(r.stdout)")
    }
}

/// A Flatpak handler without the document portal on the bus: a clear `LaunchFailed`, and the
/// Inbox copy made for it is removed (the app could not have read it).
@Suite struct NoDocumentPortalTests {
    @Test func withoutTheDocumentPortalAFlatpakHandlerGetsNoDocument() async throws {
        let (f, file) = try OpenModeTests.world()
        defer { f.stop() }
        try f.entry("org.test.Handler.desktop", """
            Name=Sandboxed
            Exec=/usr/bin/flatpak run --branch=stable --command=handler.sh --file-forwarding org.test.Handler @@u %U @@
            MimeType=text/plain;
            X-Flatpak=org.test.Handler
            """)
        let r = try await Tools.run(Clients.command("OpenMode/open-file", [f.bus.address, file.path, "r", "", "org.test.Handler.desktop"]),
                                    environment: Clients.serviceNames)
        #expect(r.stdout.contains(ContractError.launchFailed.description) && r.stdout.contains("org.freedesktop.portal.Documents"), "\(r.stdout)\(r.stderr)")
        let inbox = (try? FileManager.default.contentsOfDirectory(atPath: DocumentTests.inbox(f, "org.test.Handler").path)) ?? []
        #expect(inbox.isEmpty, "\(inbox)")
    }
}
