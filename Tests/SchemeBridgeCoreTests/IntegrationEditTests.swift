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
        #expect(state.edits["todo"]?.original == "x-scheme-handler/TODO = b.desktop" && state.edits["notes"]?.original == nil)
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
        let router = URLRouter(registry: s.tree.registry(), ownDesktopIDs: [Self.own])
        #expect(router.effectiveDefault(forScheme: "todo")?.id == "b.desktop")
        #expect(router.handlers(forScheme: "todo") == ["b.desktop", "a.desktop"])
    }
}
