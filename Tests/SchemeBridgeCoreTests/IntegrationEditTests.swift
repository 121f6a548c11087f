import Foundation
import Testing
@testable import SchemeBridgeCore

/// `schemebridge integrate` on real files: enable writes our entry as each scheme's default,
/// disable leaves `mimeapps.list` byte for byte as it was, whatever it held (comments, order,
/// CRLF lines, no final line feed, no file at all), and a line changed since is left alone. Our
/// own resolution keeps the default that was there.
@Suite struct IntegrationEditTests {
    static let own = "io.github.schemebridge.SchemeBridge.desktop"

    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        var list: String { tree.configHome + "/mimeapps.list" }
        var integration: Integration { Integration(directories: XDGDirectories(environment: tree.environment), ownID: IntegrationEditTests.own) }
        func bytes() -> [UInt8]? { FileManager.default.contents(atPath: list).map { Array($0) } }
    }

    func roundTrip(_ original: [UInt8]?, schemes: [String] = ["todo", "notes"]) async throws -> (enabled: String, state: IntegrationState) {
        let s = Setup()
        if let original { s.tree.writeBytes(s.list, original) }
        let outcome = try await s.integration.enable(schemes, all: true)
        #expect(outcome.schemes == schemes)
        let enabled = String(decoding: s.bytes() ?? [], as: UTF8.self)
        let state = try s.integration.state()
        #expect(try s.integration.check().routed == schemes.sorted())
        let back = try await s.integration.disable(nil)
        #expect(back.schemes == schemes.sorted() && back.changed.isEmpty)
        #expect(s.bytes() == original, "disable restores the file exactly")
        #expect(!FileManager.default.fileExists(atPath: s.integration.statePath), "nothing left to record")
        return (enabled, state)
    }

    @Test func disableRestoresEveryKindOfFile() async throws {
        let commented = Array("""
            # my defaults
            [Added Associations]
            x-scheme-handler/todo=b.desktop;

            [Default Applications]
            # keep this
            text/html=firefox.desktop
            x-scheme-handler/TODO = b.desktop
            [Other]
            k=v
            """.utf8) + [0x0A]
        let (enabled, state) = try await roundTrip(commented)
        #expect(enabled.contains("x-scheme-handler/TODO=\(Self.own);b.desktop;\n"), "\(enabled)")
        #expect(enabled.contains("x-scheme-handler/notes=\(Self.own)\n"), "\(enabled)")
        #expect(state.edits["todo"]?.original == Array("x-scheme-handler/TODO = b.desktop".utf8) && state.edits["notes"]?.original == nil)
        _ = try await roundTrip(nil)
        _ = try await roundTrip(Array("[Added Associations]\r\nx-scheme-handler/a=a.desktop;".utf8))
        _ = try await roundTrip(Array("# only a comment, no line feed".utf8))
        _ = try await roundTrip([])
    }

    @Test func aLineChangedSinceIsLeftAlone() async throws {
        let s = Setup()
        s.tree.write(s.list, "[Default Applications]\nx-scheme-handler/todo=b.desktop\n")
        _ = try await s.integration.enable(["todo", "notes"], all: false)
        // Someone else (gio mime, a settings panel) changes one of our lines.
        var text = s.tree.read(s.list)!
        text = text.replacingOccurrences(of: "x-scheme-handler/notes=\(Self.own)", with: "x-scheme-handler/notes=n.desktop")
        s.tree.write(s.list, text)
        #expect(try s.integration.check().changed == ["notes"])
        let back = try await s.integration.disable(nil)
        #expect(back.schemes == ["todo"] && back.changed == ["notes"])
        #expect(s.tree.read(s.list) == "[Default Applications]\nx-scheme-handler/todo=b.desktop\nx-scheme-handler/notes=n.desktop\n")
    }

    @Test func followAddsNewSchemesButNotThoseLeftOut() async throws {
        let s = Setup()
        let integration = s.integration
        #expect(try await integration.follow { ["todo"] }.isEmpty, "nothing while integration is off")
        _ = try await integration.enable(["todo"], all: true)
        #expect(try await Set(integration.follow { ["todo", "notes", "bank"] }) == ["bank", "notes"])
        _ = try await integration.disable(["bank"])
        #expect(try await integration.follow { ["todo", "notes", "bank"] }.isEmpty, "a scheme disabled by name stays out")
        #expect(try integration.state().leftOut == ["bank"])
        _ = try await integration.enable(["bank"], all: false)
        #expect(try integration.check().routed == ["bank", "notes", "todo"])
    }

    @Test func ourResolutionKeepsTheDefaultThatWasThere() async throws {
        let s = Setup()
        for id in ["a", "b"] { s.tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        s.tree.write(s.tree.apps(0) + "/" + Self.own, XDGTree.desktopFile(name: "SchemeBridge", schemes: [], exec: "schemebridge open %u"))
        s.tree.write(s.list, "[Default Applications]\nx-scheme-handler/todo=b.desktop\n")
        _ = try await s.integration.enable(["todo"], all: true)
        let router = URLRouter(registry: s.tree.registry(), ownDesktopIDs: [DesktopID(fileName: Self.own)])
        #expect(router.effectiveDefault(forScheme: "todo")?.id == "b.desktop")
        #expect(router.handlers(forScheme: "todo") == ["b.desktop", "a.desktop"])
    }

    /// Issue 21, item 11: lines that are not UTF-8 (a Latin-1 comment, a handler list with a stray
    /// byte, in the line we route and elsewhere) come back byte for byte.
    @Test func disableRestoresLinesThatAreNotUTF8() async throws {
        let latin1: [UInt8] = Array("# d".utf8) + [0xE9] + Array("faut\n[Default Applications]\nx-scheme-handler/todo=b".utf8) + [0xFF]
            + Array(".desktop;c.desktop\nx-scheme-handler/notes=n.desktop;".utf8) + [0xC3, 0x28] + Array("\ntext/html=caf".utf8) + [0xE9, 0x0D, 0x0A]
        _ = try await roundTrip(latin1)
        // Bytes in the line we route (NUL, controls, escapes, a stray byte): each case on its own.
        for odd: [UInt8] in [[0x00], [0x7F], [0x0B], [0x0C], [0x1B], [0x5C], [0x5C, 0x73], [0x5C, 0xFF], [0xC2, 0x85], [0xE2, 0x80, 0xA8], [0xEF, 0xBB, 0xBF], [0xFF]] {
            for file in [Array("[Default Applications]\nx-scheme-handler/todo=b.desktop;".utf8) + odd + Array("\t \n".utf8),
                         Array("[Default Applications]\n x-scheme-handler/todo = ".utf8) + odd + [0x0D, 0x0A]] {
                do { _ = try await roundTrip(file) } catch { Issue.record("\(odd): \(error)") }
            }
        }
        _ = try await roundTrip([0xFE, 0xFF, 0x0A] + Array("[Default Applications]\r\nx-scheme-handler/todo=".utf8) + [0x80, 0x0D, 0x0A])
    }

    /// Issue 21, item 8: an edit stopped after the list and before the record (an intent left
    /// behind) is finished at the next look, so disable still restores the list; one stopped
    /// before the list is dropped.
    @Test func anEditStoppedHalfWayIsFinishedOrDropped() async throws {
        let s = Setup()
        let original = Array("[Default Applications]\nx-scheme-handler/todo=b.desktop\n".utf8)
        s.tree.writeBytes(s.list, original)
        _ = try await s.integration.enable(["todo"], all: true)
        let routed = try #require(s.bytes()), record = try s.integration.state()
        let intent = IntegrationIntent(before: original, after: routed, record: record)
        #expect(IntegrationIntent.decode(intent.encoded(), path: "intent") == intent)
        // Stopped after the list was written: the record is written at the next look.
        unlink(s.integration.statePath)
        try FileSystem.writeAtomically(intent.encoded(), to: s.integration.intentPath)
        #expect(try s.integration.check().routed == ["todo"], "status counts the edit as done")
        #expect(try await s.integration.status().routed == ["todo"])
        #expect(try !FileManager.default.fileExists(atPath: s.integration.intentPath) && s.integration.state() == record)
        _ = try await s.integration.disable(nil)
        #expect(s.bytes() == original)
        // Stopped before the list was written: nothing happened.
        try FileSystem.writeAtomically(intent.encoded(), to: s.integration.intentPath)
        #expect(try await s.integration.status().routed.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: s.integration.intentPath) && !FileManager.default.fileExists(atPath: s.integration.statePath))
        #expect(s.bytes() == original)
    }
}
