import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Documents end to end (seed 000): `schemebridge open FILE` and `OpenFile` place a read-only
/// copy in the handler's Inbox and launch it with the copy; types, fallbacks, refusals, quotas.
@Suite struct DocumentTests {
    static func cli(_ f: ServiceFixture, _ args: String...) async throws -> ProcessResult {
        try await Tools.run([try Built.executable("schemebridge")] + args + ["--address", f.bus.address])
    }

    /// `records/<name>.argv` NUL-separated, from a recorder.
    static func inbox(_ f: ServiceFixture, _ app: String) -> URL {
        f.dataHome.appendingPathComponent("schemebridge/inbox/\(app)")
    }

    @Test func aFileGoesReadOnlyIntoTheHandlersInboxAndTheHandlerGetsItsPath() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Notes.desktop", "Name=Notes\nExec=\(try f.recorder("notes")) %f\nMimeType=text/markdown;", system: true)
        try f.entry("org.example.Web.desktop", "Name=Web\nExec=\(try f.recorder("web")) %u\nMimeType=text/html;", system: true)
        let doc = f.root.appendingPathComponent("my notes.md")
        try "# Shopping\n- milk\n".write(to: doc, atomically: true, encoding: .utf8)
        let r = try await Self.cli(f, "open", "--copy", "--json", doc.path)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)\n\(f.serviceLog)")
        #expect(r.stdout.contains("\"content_type\":\"text/markdown\"") && r.stdout.contains("\"handler\":\"org.example.Notes.desktop\""), "\(r.stdout)")
        let argv = await f.recordedArgv("notes")
        let copy = Self.inbox(f, "org.example.Notes").appendingPathComponent("my notes.md").path
        #expect(argv == [copy], "\(argv ?? [])")
        #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == "# Shopping\n- milk\n")
        let mode = (try? FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o444, "mode \(String(mode, radix: 8))")
        // A copy, not a link: the original changing does not change it.
        try "changed".write(to: doc, atomically: false, encoding: .utf8)
        #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == "# Shopping\n- milk\n")
        // The same name again is kept apart; a %u handler gets a file:// URL.
        _ = try await Self.cli(f, "open", "--copy", doc.path)
        #expect(FileManager.default.fileExists(atPath: Self.inbox(f, "org.example.Notes").appendingPathComponent("my notes (2).md").path))
        let page = f.root.appendingPathComponent("page.html")
        try "<html><body>hi</body></html>".write(to: page, atomically: true, encoding: .utf8)
        _ = try await Self.cli(f, "open", "--copy", "file://" + page.path)
        #expect(await f.recordedArgv("web") == ["file://" + Self.inbox(f, "org.example.Web").appendingPathComponent("page.html").path])
    }

    @Test func theHandlerIsFoundAlongTheSubclassChainAndDefaultsAreSetPerType() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Text.desktop", "Name=Text\nExec=\(try f.recorder("text")) %f\nMimeType=text/plain;", system: true)
        try f.entry("org.example.Other.desktop", "Name=Other\nExec=\(try f.recorder("other")) %f\nMimeType=text/plain;", system: true)
        let script = f.root.appendingPathComponent("tool.py")
        try "#!/usr/bin/python3\nprint('hi')\n".write(to: script, atomically: true, encoding: .utf8)
        let type = try await Self.cli(f, "type", script.path)
        #expect(type.stdout == "text/x-python3\n" || type.stdout == "text/x-python\n", "\(type.stdout + type.stderr)")
        // text/x-python has no handler of its own: text/plain's default opens it.
        let handlers = try await Self.cli(f, "handlers", "--type", "text/plain")
        #expect(handlers.stdout == "org.example.Other.desktop\norg.example.Text.desktop\n", "\(handlers.stdout + handlers.stderr)")
        _ = try await Self.cli(f, "open", "--copy", script.path)
        #expect(await f.recordedArgv("other") != nil)
        let set = try await Self.cli(f, "default", "--type", "text/plain", "org.example.Text.desktop")
        #expect(set.status == 0, "\(set.stderr)")
        let list = (try? String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)) ?? ""
        #expect(list.contains("text/plain=org.example.Text.desktop"), "\(list)")
        #expect(try await Self.cli(f, "default", "--type", "text/plain").stdout == "org.example.Text.desktop\n")
        _ = try await Self.cli(f, "open", "--copy", script.path)
        #expect(await f.recordedArgv("text") != nil)
        // An app that does not open the type cannot be made its default, nor asked for.
        try f.entry("org.example.Image.desktop", "Name=Image\nExec=\(try f.recorder("image")) %f\nMimeType=image/png;", system: true)
        let wrong = try await Self.cli(f, "default", "--type", "text/plain", "org.example.Image.desktop")
        #expect(wrong.status == 2 && wrong.stderr.contains("MimeType=text/plain"), "\(wrong.stderr)")
        let asked = try await Self.cli(f, "open", "--copy", "--handler", "org.example.Image.desktop", script.path)
        #expect(asked.status == 2, "\(asked.stderr)")
    }

    @Test func descriptorsThatDoNotProveReadAccessAndOtherRefusals() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Text.desktop", "Name=Text\nExec=\(try f.recorder("text")) %f\nMimeType=text/plain;", system: true)
        let file = f.root.appendingPathComponent("a.txt").path
        try "text".write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await f.runClient("Document/refusals", [file])
        #expect(r.stdout == """
            O_PATH AccessDenied
            write-only AccessDenied
            folder InvalidArgs
            pipe InvalidArgs
            bad type InvalidArgs
            no app NoHandler
            ok no error

            """, "\(r.stdout)\(r.stderr)")
        // Nothing refused left anything in an Inbox; the one opened is there.
        let inbox = (try? FileManager.default.contentsOfDirectory(atPath: Self.inbox(f, "org.example.Text").path)) ?? []
        #expect(inbox == ["a.txt"], "\(inbox)")
    }

    @Test func aLaunchThatFailsIsAnErrorAndLeavesNoCopy() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The program exists when the entry is read, and is gone when it is launched.
        let program = f.bin.appendingPathComponent("vanishing").path
        try "#!/bin/sh\n".write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        try f.entry("org.example.Gone.desktop", "Name=Gone\nExec=\(program) %f\nMimeType=text/plain;", system: true)
        #expect(try await Self.cli(f, "handlers", "--type", "text/plain").stdout == "org.example.Gone.desktop\n")
        try FileManager.default.removeItem(atPath: program)
        let file = f.root.appendingPathComponent("b.txt").path
        try "text".write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await Self.cli(f, "open", "--copy", file)
        #expect(r.status == 4 && r.stderr.contains("cannot start Gone"), "\(r.status) \(r.stderr)")
        let inbox = (try? FileManager.default.contentsOfDirectory(atPath: Self.inbox(f, "org.example.Gone").path)) ?? []
        #expect(inbox.isEmpty, "\(inbox)")
    }

    @Test func inboxesHaveAByteCapAndOldFilesGoAfterTheRetention() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Documents]\nMaxInboxBytes=100\n")
        try f.entry("org.example.Text.desktop", "Name=Text\nExec=\(try f.recorder("text")) %f\nMimeType=text/plain;", system: true)
        let small = f.root.appendingPathComponent("small.txt").path, big = f.root.appendingPathComponent("big.txt").path
        try String(repeating: "s", count: 60).write(toFile: small, atomically: true, encoding: .utf8)
        try String(repeating: "b", count: 60).write(toFile: big, atomically: true, encoding: .utf8)
        #expect(try await Self.cli(f, "open", "--copy", small).status == 0)
        let over = try await Self.cli(f, "open", "--copy", big)
        #expect(over.status == 4 && over.stderr.contains("MaxInboxBytes"), "\(over.stderr)")
        // A file older than the retention is removed at the service's next start.
        let copy = Self.inbox(f, "org.example.Text").appendingPathComponent("small.txt").path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -8 * 86_400)], ofItemAtPath: copy)
        let pid = try #require(await f.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await f.servicePID() != pid })
        #expect(try await Self.cli(f, "handlers", "--type", "text/plain").status == 0)  // starts it again
        #expect(await Tools.eventually { !FileManager.default.fileExists(atPath: copy) }, "the old Inbox file is removed")
        #expect(try await Self.cli(f, "open", "--copy", big).status == 0, "the Inbox has room again")
    }

    @Test func askOffersTheTypesHandlersAndAlwaysIsRememberedForThatCallerOnly() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Text.desktop", "Name=Text\nExec=\(try f.recorder("text")) %f\nMimeType=text/plain;", system: true)
        try f.entry("org.example.Other.desktop", "Name=Other\nExec=\(try f.recorder("other")) %f\nMimeType=text/plain;", system: true)
        // The chooser picks the second offered app (Text: the default, Other, comes first), "always".
        let chooser = try f.chooser("pick-second", "printf 'org.example.Text.desktop\\talways\\n'")
        try f.writeConfig("[Chooser]\nCommand=\(chooser)\n")
        let file = f.root.appendingPathComponent("c.txt").path
        try "text".write(toFile: file, atomically: true, encoding: .utf8)
        let asker = try f.pythonNamed("doc-asker")
        let first = try await f.runClient("Document/open-file", python: asker, [file, "ask"])
        #expect(first.stdout == "org.example.Text.desktop\n", "\(first.stdout)\(first.stderr)")
        #expect(f.chooserSaw("pick-second").contains("org.example.Other.desktop\tOther") && f.chooserSaw("pick-second").contains("SCHEMEBRIDGE_CHOOSER_KIND=type"))
        // Remembered for this caller: a plain open goes there without asking; another caller gets the default.
        let again = try await f.runClient("Document/open-file", python: asker, [file, "plain"])
        #expect(again.stdout == "org.example.Text.desktop\n", "\(again.stdout)\(again.stderr)")
        #expect(f.chooserRuns("pick-second") == 1)
        let other = try await f.runClient("Document/open-file", python: try f.pythonNamed("doc-other"), [file, "plain"])
        #expect(other.stdout == "org.example.Other.desktop\n", "\(other.stdout)\(other.stderr)")
    }

    @Test func aPDFWithAHostileNameReachesItsHandlerAsOneArgumentAndSpecialFilesAreClearErrors() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.PDF.desktop", "Name=PDF\nExec=\(try f.recorder("pdf")) --file %f\nMimeType=application/pdf;", system: true)
        let name = "-rf 'quoted' \"double\" $(touch pwned) spaced ;name.pdf"
        let pdf = f.root.appendingPathComponent(name)
        let body = Data("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".utf8) + Data(repeating: 7, count: 100_000)
        try body.write(to: pdf)
        let r = try await Self.cli(f, "open", "--copy", pdf.path)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let argv = await f.recordedArgv("pdf") ?? []
        let copy = Self.inbox(f, "org.example.PDF").appendingPathComponent(name).path
        #expect(argv == ["--file", copy], "\(argv)")
        #expect(FileManager.default.contents(atPath: copy) == body, "the copy equals the original")
        let mode = (try? FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o444, "read-only for its owner too: mode \(String(mode, radix: 8))")
        #expect(!FileManager.default.fileExists(atPath: f.root.appendingPathComponent("pwned").path) && !FileManager.default.fileExists(atPath: "pwned"))
        // A newline in a name is dropped from the Inbox copy's name (the argument stays one).
        let newline = f.root.appendingPathComponent("two\nlines.pdf")
        try body.write(to: newline)
        #expect(try await Self.cli(f, "open", "--copy", newline.path).status == 0)
        #expect(FileManager.default.fileExists(atPath: Self.inbox(f, "org.example.PDF").appendingPathComponent("twolines.pdf").path))
        // Special files: clear errors, nothing hangs.
        let fifo = f.root.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let fifoOpen = try await Self.cli(f, "open", "--copy", fifo)
        #expect(fifoOpen.status == 1 && fifoOpen.stderr.contains("regular files"), "\(fifoOpen.status) \(fifoOpen.stderr)")
        let zero = try await Self.cli(f, "open", "--copy", "/dev/zero")
        #expect(zero.status == 1 && zero.stderr.contains("regular files"), "\(zero.status) \(zero.stderr)")
        let folder = try await Self.cli(f, "open", "--copy", f.root.path)
        #expect(folder.status == 3 && folder.stderr.contains("folder"), "\(folder.status) \(folder.stderr)")
        // A Unix socket cannot be opened as a file at all.
        let socketPath = f.root.appendingPathComponent("sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in socketPath.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        defer { close(fd) }
        #expect(bound == 0)
        let sock = try await Self.cli(f, "open", "--copy", socketPath)
        #expect(sock.status == 4 && sock.stderr.contains("cannot open"), "\(sock.status) \(sock.stderr)")
        #expect(await f.servicePID() != nil, "the service is still there")
    }
}
