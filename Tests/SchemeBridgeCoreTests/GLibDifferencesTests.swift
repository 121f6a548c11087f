import Foundation
import Testing
@testable import SchemeBridgeCore

/// Each documented case (docs/REGISTRY.md, "Where GLib differs") checked against the real `gio`:
/// our answer per the specs, and GLib's different one. If GLib's answer changes (a newer GLib),
/// the test says so and the document needs updating.
@Suite(.serialized) struct GLibDifferencesTests {
    /// Our default and gio's for scheme `s` in `t`.
    func answers(_ t: XDGTree, runUpdateDesktopDatabase: Bool = true) throws -> (ours: String?, glib: String?)? {
        guard let gio = requireTool("gio", package: "libglib2.0-bin"),
              let udd = requireTool("update-desktop-database", package: "desktop-file-utils") else { return nil }
        if runUpdateDesktopDatabase { try GioMime.updateDesktopDatabase(t, tool: udd) }
        let ours = t.registry().defaultHandler(forScheme: "s")?.fileName
        let glib = try GioMime.query(t, scheme: "s", gio: gio).defaultID
        return (ours, glib)
    }

    @Test func glibNeedsMimeinfoCache() throws {
        let t = XDGTree()
        t.entry(1, "new.desktop", schemes: ["s"])
        let a = try #require(try answers(t, runUpdateDesktopDatabase: false))
        #expect(a.ours == "new.desktop")
        #expect(a.glib == nil, "GLib now finds entries without mimeinfo.cache")
    }

    @Test func glibDoesNotCheckThatADefaultIsAssociated() throws {
        let t = XDGTree()
        t.entry(1, "handler.desktop", schemes: ["s"])
        t.entry(1, "unrelated.desktop", schemes: ["other"])
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "unrelated.desktop"])
        let a = try #require(try answers(t))
        #expect(a.ours == "handler.desktop")
        #expect(a.glib == "unrelated.desktop")
    }

    @Test func glibDefaultIsNotVetoedByARemovedAssociation() throws {
        let t = XDGTree()
        t.entry(1, "a.desktop", schemes: ["s"])
        t.entry(1, "b.desktop", schemes: ["s"])
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "b.desktop"], removed: ["s": "b.desktop"])
        let a = try #require(try answers(t))
        #expect(a.ours == "a.desktop")
        #expect(a.glib == "b.desktop")
    }

    @Test func glibIgnoresARemovalInTheEntrysOwnDirectory() throws {
        let t = XDGTree()
        t.entry(0, "a.desktop", schemes: ["s"])
        t.entry(0, "b.desktop", schemes: ["s"])
        t.list(t.apps(0) + "/mimeapps.list", removed: ["s": "a.desktop"])
        let a = try #require(try answers(t))
        #expect(a.ours == "b.desktop")
        #expect(a.glib == "a.desktop")
    }

    @Test func glibReturnsAHiddenEntryNamedAsDefault() throws {
        let t = XDGTree()
        t.entry(1, "h.desktop", schemes: ["s"])
        t.entry(1, "a.desktop", schemes: ["s"])
        t.entry(0, "h.desktop", schemes: ["s"], extra: "Hidden=true")
        t.list(t.configHome + "/mimeapps.list", defaults: ["s": "h.desktop"])
        let a = try #require(try answers(t))
        #expect(a.ours == "a.desktop")
        #expect(a.glib == "h.desktop")
    }

    @Test func glibFallsBackToAMaskedLowerEntry() throws {
        let t = XDGTree()
        t.entry(1, "t.desktop", schemes: ["s"])
        t.entry(0, "t.desktop", schemes: ["s"], extra: "TryExec=/nonexistent/tool")
        let a = try #require(try answers(t))
        #expect(a.ours == nil)
        #expect(a.glib == "t.desktop")
    }

    @Test func glibRequiresTheExecProgramToExist() throws {
        let t = XDGTree()
        t.entry(1, "m.desktop", schemes: ["s"], exec: "/nonexistent/app %u")
        let a = try #require(try answers(t))
        #expect(a.ours == "m.desktop")
        #expect(a.glib == nil)
    }

    @Test func glibReadsDefaultsList() throws {
        let t = XDGTree()
        t.entry(1, "a.desktop", schemes: ["s"])
        t.entry(1, "b.desktop", schemes: ["s"])
        t.write(t.apps(1) + "/defaults.list", "[Default Applications]\nx-scheme-handler/s=b.desktop\n")
        let a = try #require(try answers(t))
        #expect(a.ours == "a.desktop")
        #expect(a.glib == "b.desktop")
    }

    @Test func glibAcceptsShellSingleQuotes() throws {
        let t = XDGTree()
        t.entry(1, "q.desktop", schemes: ["s"], exec: "sh -c 'exec true' %u")
        let a = try #require(try answers(t))
        #expect(a.ours == nil)
        #expect(a.glib == "q.desktop")
    }

    @Test func glibIndexesDotFiles() throws {
        let t = XDGTree()
        t.entry(1, ".dot.desktop", schemes: ["s"])
        let a = try #require(try answers(t))
        #expect(a.ours == nil)
        #expect(a.glib == ".dot.desktop")
    }

    @Test func glibMatchesMimeappsKeysCaseSensitively() throws {
        let t = TypeResolutionTests.tree()
        t.entry(1, "a.desktop", mimeTypes: ["text/plain"])
        t.entry(1, "b.desktop", mimeTypes: ["text/plain"])
        try "[Default Applications]\nText/Plain=b.desktop\n".write(toFile: t.configHome + "/mimeapps.list", atomically: true, encoding: .utf8)
        let a = try #require(try TypeResolutionTests.answers(t, "text/plain"))
        #expect(a.ours.first == "b.desktop")
        #expect(a.glib.defaultID == "a.desktop", "GLib now matches Text/Plain= as text/plain")
    }

    @Test func glibLooksOnlyAtDeclaredParents() throws {
        // text/x-schemebridge-unknown is in no database: a text type, so a text/plain (spec:
        // "all text/* types are subtypes of text/plain"); image/png declares no parent, and every
        // type is an application/octet-stream.
        let t = TypeResolutionTests.tree()
        t.entry(1, "plain.desktop", mimeTypes: ["text/plain"])
        t.entry(1, "hex.desktop", mimeTypes: ["application/octet-stream"])
        let text = try #require(try TypeResolutionTests.answers(t, "text/x-schemebridge-unknown"))
        #expect(text.ours == ["plain.desktop"])
        #expect(text.glib.defaultID == nil)
        let png = try #require(try TypeResolutionTests.answers(t, "image/png"))
        #expect(png.ours == ["hex.desktop"])
        #expect(png.glib.defaultID == nil)
        // A declared parent both follow: text/markdown is a text/plain by declaration.
        let markdown = try #require(try TypeResolutionTests.answers(t, "text/markdown"))
        #expect(markdown.ours == ["plain.desktop"] && markdown.glib.defaultID == "plain.desktop")
    }
}
