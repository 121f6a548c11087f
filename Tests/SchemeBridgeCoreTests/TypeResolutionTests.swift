import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// Handlers for content types, case by case, each answer checked against `gio mime` as well:
/// aliases name the same type, a removal holds along the parent chain, `setDefault(type:)` is
/// what gio and xdg-mime read, and the answers follow changes while the registry runs.
@Suite(.serialized) struct TypeResolutionTests {
    /// A tree whose last data directory holds the system's mime database.
    static func tree(desktop: String? = nil) -> XDGTree {
        let t = XDGTree(dataDirCount: 2, desktop: desktop)
        #expect(symlink("/usr/share/mime", t.dataDirs[1] + "/mime") == 0)
        return t
    }

    /// Our answer for `type` (`Documents.handlers(forType:)`: along the parent chain, the
    /// default first) and gio's, after `update-desktop-database`.
    static func answers(_ t: XDGTree, _ type: String, registry: Registry? = nil) throws -> (ours: [String], glib: GioMimeAnswer)? {
        guard let gio = requireTool("gio", package: "libglib2.0-bin"),
              let udd = requireTool("update-desktop-database", package: "desktop-file-utils") else { return nil }
        try GioMime.updateDesktopDatabase(t, tool: udd)
        let r = registry ?? Registry(environment: t.environment, watch: false, contentTypes: ContentTypeDatabase(environment: t.environment))
        return (TypeDifferentialTests.documents(t, r).handlers(forType: type).handlers.map(\.fileName), try GioMime.query(t, type, gio: gio))
    }

    @Test func anAliasNamesTheSameType() throws {
        let t = Self.tree()
        t.entry(1, "md.desktop", mimeTypes: ["text/markdown"])
        t.entry(1, "old.desktop", mimeTypes: ["text/x-markdown"])
        t.entry(1, "pdf.desktop", mimeTypes: ["application/x-pdf"])
        let db = ContentTypeDatabase(environment: t.environment)
        #expect(db.aliases(of: "text/markdown") == ["text/x-markdown"])
        #expect(db.aliases(of: "text/x-markdown") == ["text/x-markdown"])
        let r = Registry(environment: t.environment, watch: false, contentTypes: db)
        // Both entries handle the type, by either name; the order is update-desktop-database's
        // (the names in byte order, then the IDs), so GLib agrees.
        #expect(r.handlers(forType: "text/markdown") == ["md.desktop", "old.desktop"])
        #expect(r.handlers(forType: "text/x-markdown") == ["md.desktop", "old.desktop"])
        #expect(r.handlers(forType: "application/pdf") == ["pdf.desktop"])
        // Without a content-type database, a name is only itself.
        #expect(t.registry().handlers(forType: "text/markdown") == ["md.desktop"])
        // A list naming the alias names the type.
        t.list(t.configHome + "/mimeapps.list", defaults: ["text/x-markdown": "old.desktop"], keyPrefix: "")
        r.rescan()
        #expect(r.handlers(forType: "text/markdown") == ["old.desktop", "md.desktop"])
        for query in ["text/markdown", "text/x-markdown"] {
            let a = try #require(try Self.answers(t, query, registry: r))
            #expect(a.ours == ["old.desktop", "md.desktop"])
            #expect(a.glib.defaultID == "old.desktop")
            #expect(GioMime.defaultFirst(a.glib.recommended, "old.desktop") == a.ours)
        }
        // A removal by the alias removes the type's handler.
        t.list(t.configHome + "/mimeapps.list", removed: ["text/x-markdown": "md.desktop"], keyPrefix: "")
        r.rescan()
        let a = try #require(try Self.answers(t, "text/markdown", registry: r))
        #expect(a.ours == ["old.desktop"])
        #expect(a.glib.defaultID == "old.desktop" && a.glib.recommended == ["old.desktop"])
    }

    @Test func aRemovalHoldsAlongTheParentChain() throws {
        // text/markdown has no handler of its own; text/plain (its declared parent) has c and p.
        let t = Self.tree()
        t.entry(1, "c.desktop", mimeTypes: ["text/plain"])
        t.entry(1, "p.desktop", mimeTypes: ["text/plain"])
        func check(_ removed: String, default plainDefault: String? = nil, ours: [String], glib: String?) throws {
            t.list(t.configHome + "/mimeapps.list", defaults: plainDefault.map { ["text/plain": $0] } ?? [:],
                   removed: ["text/markdown": removed], keyPrefix: "")
            let a = try #require(try Self.answers(t, "text/markdown"))
            #expect(a.ours == ours, "removed \(removed)")
            #expect(a.glib.defaultID == glib, "removed \(removed)")
        }
        // Removed for text/markdown: not its handler through text/plain either, as in GLib.
        try check("c.desktop;", ours: ["p.desktop"], glib: "p.desktop")
        try check("c.desktop;p.desktop;", ours: [], glib: nil)
        // c is text/plain's named default: GLib still picks it (a removal does not veto its
        // defaults: docs/REGISTRY.md, difference 3); we do not.
        try check("c.desktop;", default: "c.desktop", ours: ["p.desktop"], glib: "c.desktop")
        // By the alias's name, the same.
        t.list(t.configHome + "/mimeapps.list", removed: ["text/x-markdown": "c.desktop;"], keyPrefix: "")
        let a = try #require(try Self.answers(t, "text/markdown"))
        #expect(a.ours == ["p.desktop"] && a.glib.defaultID == "p.desktop")
        // text/plain itself keeps both.
        #expect(try #require(try Self.answers(t, "text/plain")).ours == ["c.desktop", "p.desktop"])
    }

    @Test func setDefaultIsWhatGioAndXdgMimeReport() throws {
        guard let gio = requireTool("gio", package: "libglib2.0-bin"),
              let xdgMime = requireTool("xdg-mime", package: "xdg-utils"),
              let udd = requireTool("update-desktop-database", package: "desktop-file-utils") else { return }
        let t = Self.tree()
        t.entry(1, "a.desktop", mimeTypes: ["text/markdown"])
        t.entry(1, "b.desktop", mimeTypes: ["text/x-markdown"])
        t.entry(2, "vendor/c.desktop", mimeTypes: ["text/markdown", "image/png"])
        t.write(t.configHome + "/mimeapps.list", "# mine\n[Default Applications]\nx-scheme-handler/todo=a.desktop\n")
        try GioMime.updateDesktopDatabase(t, tool: udd)
        let r = Registry(environment: t.environment, watch: false, contentTypes: ContentTypeDatabase(environment: t.environment))
        for (type, id) in [("text/markdown", "b.desktop"), ("text/x-markdown", "vendor-c.desktop"), ("text/markdown", "a.desktop")] {
            let resolution = try r.setDefault(type: type, desktopID: DesktopID(fileName: id))
            #expect(resolution.defaultHandler?.fileName == id)
            #expect(try GioMime.query(t, "text/markdown", gio: gio).defaultID == id)
            let x = String(decoding: try runTool([xdgMime, "query", "default", "text/markdown"], environment: GioMime.toolEnvironment(t)).output, as: UTF8.self)
            #expect(x.trimmingCharacters(in: .whitespacesAndNewlines) == id, "xdg-mime: \(x)")
        }
        // The canonical name is written, once, and nothing else changes.
        #expect(t.read(t.configHome + "/mimeapps.list")?.hasPrefix("# mine\n[Default Applications]\nx-scheme-handler/todo=a.desktop\ntext/markdown=a.desktop\n") == true)
        #expect(t.read(t.configHome + "/mimeapps.list")?.contains("text/x-markdown") == false)
        // An entry that opens neither the type nor an alias of it is refused.
        #expect(throws: SetDefaultError.self) { try r.setDefault(type: "image/png", desktopID: "a.desktop") }
        // And the other way round: what gio writes, we read. gio writes the name it is given:
        // set by the alias, the canonical name's older line still comes first — for GLib and
        // for us (which is why setDefault writes the canonical name).
        for (name, id, expected) in [("text/x-markdown", "b.desktop", "a.desktop"), ("text/markdown", "vendor-c.desktop", "vendor-c.desktop")] {
            #expect(try runTool([gio, "mime", name, id], environment: GioMime.toolEnvironment(t)).status == 0)
            r.rescan()
            #expect(r.resolution(forType: "text/markdown").defaultHandler?.fileName == expected)
            #expect(try GioMime.query(t, "text/markdown", gio: gio).defaultID == expected)
        }
    }
}

extension WatcherTests {
    /// A running registry's answers for a type follow new entries, lists and removals — no
    /// restart — and agree with gio at each step.
    @Suite struct TypeLiveUpdateTests {
        @Test func answersFollowChangesWithoutRestart() async throws {
            let t = TypeResolutionTests.tree()
            let r = Registry(environment: t.environment, watch: true, contentTypes: ContentTypeDatabase(environment: t.environment))
            defer { r.close() }
            let documents = TypeDifferentialTests.documents(t, r)
            func ours() -> [String] { documents.handlers(forType: "text/markdown").handlers.map(\.fileName) }
            // Each step waits for the watcher (a generous ceiling; it takes milliseconds), then
            // asks gio.
            func step(_ expected: [String], _ what: String) async throws {
                let seen = await waitUntil(timeout: .seconds(60)) { ours() == expected }
                #expect(seen != nil, "\(what): ours \(ours()), expected \(expected)")
                let a = try #require(try TypeResolutionTests.answers(t, "text/markdown", registry: r))
                #expect(a.glib.defaultID == expected.first, "\(what): gio \(a.glib.defaultID ?? "none")")
            }
            try await step([], "empty tree")
            t.entry(1, "plain.desktop", mimeTypes: ["text/plain"])
            try await step(["plain.desktop"], "a text/plain handler (the parent)")
            t.entry(0, "notes.desktop", mimeTypes: ["text/x-markdown"])
            try await step(["notes.desktop"], "a handler of the type, by its alias")
            t.entry(1, "md.desktop", mimeTypes: ["text/markdown"])
            try await step(["notes.desktop", "md.desktop"], "a second one, in a lower directory")
            t.list(t.configHome + "/mimeapps.list", defaults: ["text/markdown": "md.desktop"], keyPrefix: "")
            try await step(["md.desktop", "notes.desktop"], "a default list")
            t.list(t.configHome + "/mimeapps.list", removed: ["text/markdown": "md.desktop;notes.desktop;plain.desktop;"], keyPrefix: "")
            try await step([], "every handler removed, the parent's too")
            t.list(t.configHome + "/mimeapps.list", removed: ["text/markdown": "md.desktop;"], keyPrefix: "")
            try await step(["notes.desktop"], "one removal left")
            unlink(t.apps(0) + "/notes.desktop")
            try await step(["plain.desktop"], "its entry deleted: the parent's handler")
        }
    }
}
