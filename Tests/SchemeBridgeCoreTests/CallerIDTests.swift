import Foundation
import Testing
@testable import SchemeBridgeCore

/// ``CallerID``: the forms a caller identity takes, which spellings are the same caller, and
/// what names none.
@Suite struct CallerIDTests {
    @Test func eachKindIsMadeAndPrintedOneWay() throws {
        let flatpak = CallerID.flatpak(try #require(AppID("org.example.App")))
        #expect(flatpak.text == "org.example.App" && flatpak.description == "org.example.App" && flatpak.kind == .app)
        #expect(flatpak.desktopID == "org.example.App.desktop")
        let desktop = try #require(CallerID.desktop("vendor-tool.desktop"))
        #expect(desktop.text == "vendor-tool" && desktop.kind == .app && desktop.desktopID == "vendor-tool.desktop")
        let snap = try #require(CallerID.snap("firefox"))
        #expect(snap.text == "snap.firefox" && snap.kind == .snap && snap.desktopID == nil)
        let exe = try #require(CallerID.executable("/usr/bin/tool"))
        #expect(exe.text == "/usr/bin/tool" && exe.kind == .executable && exe.desktopID == nil)
        // Text reads back as what printed it.
        for id in [flatpak, desktop, snap, exe] { #expect(CallerID(id.text) == id) }
    }

    @Test func spellingsOfTheSameCallerAreEqual() throws {
        // A Flatpak app and the installed entry of the same id are one caller; `.desktop` or not.
        #expect(CallerID.flatpak(try #require(AppID("org.example.App"))) == CallerID.desktop("org.example.App.desktop"))
        #expect(CallerID("org.example.App") == CallerID("org.example.App.desktop"))
        #expect(CallerID.desktop(DesktopID("org.example.App")) == CallerID("org.example.App"))
        #expect(Set([CallerID("org.example.App"), CallerID("org.example.App.desktop")]).count == 1)
        #expect(CallerID("snap.firefox") == CallerID.snap("firefox"))
        // Different callers stay different.
        #expect(CallerID("org.example.App") != CallerID("org.example.app"))
        #expect(CallerID("/usr/bin/tool") != CallerID("tool"))
    }

    @Test func textThatNamesNoCallerIsRefused() {
        for text in ["", ".desktop", "relative/path", "a;b", "a=b", "tab\there", "/usr/bin/new\nline", "/" + String(repeating: "x", count: 4096)] {
            #expect(CallerID(text) == nil, "\(text.prefix(40))")
        }
        #expect(CallerID.executable("usr/bin/tool") == nil, "not absolute")
        #expect(CallerID.desktop(DesktopID(fileName: "bad/name.desktop")) == nil)
        for name in ["", "-firefox", "firefox-", "fire--fox", "Firefox", "1234", String(repeating: "a", count: 41), "fire_fox"] {
            #expect(CallerID.snap(name) == nil, "\(name)")
        }
        #expect(throws: ServiceFailure.self) { try CallerID(checking: "a;b") }
        // `snap.` with no valid name after it is an app id like any other.
        let notASnap = "snap.Bad_Name"
        #expect(CallerID(notASnap)?.kind == .app)
    }

    @Test func codedAsItsText() throws {
        let ids: [CallerID] = ["org.example.App", "/usr/bin/tool", "snap.firefox"]
        let data = try JSONEncoder().encode(ids)
        #expect(String(decoding: data, as: UTF8.self) == #"["org.example.App","\/usr\/bin\/tool","snap.firefox"]"#)
        #expect(try JSONDecoder().decode([CallerID].self, from: data) == ids)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([CallerID].self, from: Data(#"["a;b"]"#.utf8)) }
    }
}
