import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 37, item 2: in place means the file the caller had. A real sandboxed app (org.test.Caller,
/// `flatpak run`) opens a file of its own (`~/.var/app/org.test.Caller/data`) with
/// `OpenFile(mode=in-place)` from a read-write descriptor and, once the reply is in, swaps the
/// name for a symlink to a file it never had — the user's `~/.config/autostart/login.desktop`.
/// The handler opens its argument only after the swap (it waits for the test's word). Before,
/// an unsandboxed handler was given the caller's path and wrote the autostart entry; a sandboxed
/// one was granted `write` on a portal document that names the file by its folder and name, and
/// the portal (outside any sandbox) followed the symlink when the handler saved.
@Suite struct FlatpakInPlaceSwapTests {
    static let draft = "the app's draft\n"
    static let login = "[Desktop Entry]\nType=Application\nName=Login\nExec=/usr/bin/true\n"

    /// The fixture, the app's file `name` in its own data folder, and the victim.
    static func world(_ name: String) async throws -> (FlatpakFixture, URL, URL) {
        let w = try await FlatpakFixture()
        let data = w.service.root.appendingPathComponent(".var/app/org.test.Caller/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let file = data.appendingPathComponent(name)
        try draft.write(to: file, atomically: true, encoding: .utf8)
        let autostart = w.service.configHome.appendingPathComponent("autostart")
        try FileManager.default.createDirectory(at: autostart, withIntermediateDirectories: true)
        let victim = autostart.appendingPathComponent("login.desktop")
        try login.write(to: victim, atomically: true, encoding: .utf8)
        return (w, file, victim)
    }

    /// The sandboxed caller's `OpenFile` in place, then its swap; its output.
    static func openAndSwap(_ w: FlatpakFixture, _ file: URL, _ victim: URL) async throws -> String {
        let r = try await w.flatpak(["run", "--command=openfile-client", "org.test.Caller", file.path, "in-place", victim.path])
        return r.stdout + r.stderr
    }

    /// An unsandboxed editor (a real program: it records its argv — whole, by a rename, as the test
    /// waits for the name —, waits for `go`, then reads its argument and appends a line to it, as
    /// a save does: `O_CREAT|O_APPEND`) is given the document in a form bound to the caller's
    /// file, not a path the caller can re-point.
    @Test func anUnsandboxedHandlerNeverOpensWhatTheSandboxedCallerSwappedIn() async throws {
        let (w, file, victim) = try await Self.world("draft.txt")
        defer { w.stop() }
        let records = w.service.records.path
        let editor = w.service.bin.appendingPathComponent("editor").path
        try """
            #!/bin/sh
            printf '%s\\0' "$@" > "\(records)/editor.argv.tmp"
            mv "\(records)/editor.argv.tmp" "\(records)/editor.argv"
            n=0
            while [ ! -e "\(records)/go" ] && [ $n -lt 3000 ]; do sleep 0.1; n=$((n+1)); done
            cat "$1" > "\(records)/editor.read" 2> "\(records)/editor.read.err"
            if (printf 'saved by the editor\\n' >> "$1") 2> "\(records)/editor.write.err"; then echo wrote > "\(records)/editor.write"; else echo denied > "\(records)/editor.write"; fi
            : > "\(records)/editor.done"
            """.write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        try w.service.entry("editor.desktop", "Name=Editor\nExec=\(editor) %f\nMimeType=text/plain;")

        let out = try await Self.openAndSwap(w, file, victim)
        #expect(out.contains("handler=editor.desktop") && out.contains("swapped"), "\(out)\n\(w.service.serviceLog)")
        let argv = await w.service.recordedArgv("editor") ?? []
        _ = FileManager.default.createFile(atPath: w.service.records.appendingPathComponent("go").path, contents: Data())
        let done = await Tools.eventually { FileManager.default.fileExists(atPath: "\(records)/editor.done") }
        #expect(done, "the editor never finished: \(argv)")

        let entry = try String(contentsOf: victim, encoding: .utf8)
        #expect(entry == Self.login, "the user's autostart entry was written through the swapped name")
        let path = try #require(argv.first, "\(out)")
        #expect(argv.count == 1)
        #expect(out.contains("path=\(path)\n"), "the path result names what the handler got: \(out)")
        #expect(!path.hasPrefix(file.deletingLastPathComponent().path), "the handler got the caller's own path, which the caller re-points: \(path)")
        let read = try? String(contentsOfFile: "\(records)/editor.read", encoding: .utf8)
        #expect(read == Self.draft, "the handler read something else than the caller's file: \((try? String(contentsOfFile: "\(records)/editor.read.err", encoding: .utf8)) ?? "")")
    }

    /// A sandboxed handler (org.test.Handler, through the real document portal) from a sandboxed
    /// caller: its save never reaches the file the caller swapped in.
    @Test func aSandboxedHandlersSaveNeverReachesWhatTheSandboxedCallerSwappedIn() async throws {
        let (w, file, victim) = try await Self.world("await-draft.txt")
        defer { w.stop() }
        try w.installExportedEntry("org.test.Handler")

        let out = try await Self.openAndSwap(w, file, victim)
        #expect(out.contains("handler=org.test.Handler.desktop") && out.contains("swapped"), "\(out)\n\(w.service.serviceLog)")
        _ = await w.appRecord("org.test.Handler", "awaiting")
        _ = FileManager.default.createFile(atPath: w.service.root.appendingPathComponent(".var/app/org.test.Handler/data/go").path, contents: Data())
        let argv = await w.handlerArgv()
        let doc = try #require(FlatpakDocumentTests.portalDocument(argv), "\(argv ?? []) \(out)\n\(w.service.serviceLog)")

        let entry = try String(contentsOf: victim, encoding: .utf8)
        #expect(entry == Self.login, "the user's autostart entry was written through the swapped name")
        #expect(await w.appRecord("org.test.Handler", "read.out") == Self.draft)
        #expect(await w.appRecord("org.test.Handler", "write.out") == "denied \(doc.path)\n")
    }
}
