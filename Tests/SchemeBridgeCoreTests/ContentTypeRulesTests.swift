import Glibc
import Testing
@testable import SchemeBridgeCore

/// The shared-mime-info rules on a private database, each case checked against our expectation
/// and against `gio info` on the same database (the two documented deviations excepted: there
/// the spec's answer is asserted and GLib's noted).
@Suite(.serialized) struct ContentTypeRulesTests {
    static let home = """
        <mime-type type="application/x-t-l1"><glob pattern="Abc" case-sensitive="true"/></mime-type>
        <mime-type type="application/x-t-l2"><glob pattern="abc"/></mime-type>
        <mime-type type="application/x-t-cs"><glob pattern="*.QQ" case-sensitive="true" weight="90"/></mime-type>
        <mime-type type="application/x-t-ci"><glob pattern="*.qq"/></mime-type>
        <mime-type type="application/x-t-f1"><glob pattern="Zz*" case-sensitive="true" weight="90"/></mime-type>
        <mime-type type="application/x-t-f2"><glob pattern="zz*"/></mime-type>
        <mime-type type="application/x-t-hi"><glob pattern="*.x[yz]" weight="90"/></mime-type>
        <mime-type type="application/x-t-lo"><glob pattern="*.xy"/></mime-type>
        <mime-type type="application/x-t-lo2"><glob pattern="*.lo"/></mime-type>
        <mime-type type="application/x-t-any"><glob pattern="*.L[O]" case-sensitive="true" weight="90"/></mime-type>
        <mime-type type="application/x-t-short"><glob pattern="q*"/></mime-type>
        <mime-type type="application/x-t-long"><glob pattern="qrst*"/></mime-type>
        <mime-type type="application/x-t-sfxa"><glob pattern="*.sfx"/></mime-type>
        <mime-type type="application/x-t-sfxb"><glob pattern="*.sfx"/></mime-type>
        <mime-type type="application/x-t-sfxlong"><glob pattern="*.b.sfx" weight="40"/></mime-type>
        <mime-type type="application/x-t-uni"><glob pattern="*.ü"/></mime-type>
        <mime-type type="application/x-t-both-home"><glob pattern="*.both"/></mime-type>
        <mime-type type="application/x-t-lit-home"><glob pattern="lit"/></mime-type>
        <mime-type type="text/x-t-doc"><sub-class-of type="text/plain"/><glob pattern="*.tdoc"/></mime-type>
        <mime-type type="application/x-t-docbin"><glob pattern="*.tdoc"/>
          <magic priority="50"><match type="string" offset="0" value="TDOC"/></magic></mime-type>
        <mime-type type="application/x-t-strong"><glob pattern="*.strong"/>
          <magic priority="90"><match type="string" offset="0" value="STRONG"/></magic></mime-type>
        <mime-type type="application/x-t-weak"><magic priority="40"><match type="string" offset="0" value="STR"/></magic></mime-type>
        <mime-type type="application/x-t-nested"><magic priority="60">
          <match type="string" offset="0" value="NEST"><match type="string" offset="8" value="ED"/></match></magic></mime-type>
        <mime-type type="application/x-t-range"><magic priority="55"><match type="string" offset="4:20" value="FINDME"/></magic></mime-type>
        <mime-type type="application/x-t-mask"><magic priority="55">
          <match type="big32" offset="0" value="0x4d410000" mask="0xffff0000"/></magic></mime-type>
        <mime-type type="application/x-t-tie-home"><magic priority="50"><match type="string" offset="0" value="TIE!"/></magic></mime-type>
        <mime-type type="application/x-t-high-home"><magic priority="30"><match type="string" offset="0" value="HIGH"/></magic></mime-type>
        <mime-type type="application/x-t-child"><sub-class-of type="application/x-t-parent"/><alias type="application/x-t-old-child"/></mime-type>
        <mime-type type="application/x-t-parent"><sub-class-of type="text/x-t-base"/></mime-type>
        <mime-type type="text/x-t-base"/>
        <mime-type type="application/x-t-loop-a"><sub-class-of type="application/x-t-loop-b"/></mime-type>
        <mime-type type="application/x-t-loop-b"><sub-class-of type="application/x-t-loop-a"/></mime-type>
        """
    static let dataDir = """
        <mime-type type="application/x-t-both-dir"><glob pattern="*.both" weight="60"/></mime-type>
        <mime-type type="application/x-t-lit-dir"><glob pattern="lit"/></mime-type>
        <mime-type type="application/x-t-tie-dir"><magic priority="50"><match type="string" offset="0" value="TIE!"/></magic></mime-type>
        <mime-type type="application/x-t-high-dir"><magic priority="70"><match type="string" offset="0" value="HIGH"/></magic></mime-type>
        <mime-type type="application/x-t-parent"><alias type="application/x-t-dir-alias"/></mime-type>
        """

    static let junk = ContentTypeSamples.binaryJunk
    static let text = ContentTypeSamples.textLines
    static func a(_ s: String) -> [UInt8] { ContentTypeSamples.ascii(s) + junk.prefix(40) }

    /// Name, content, our expected type, and GLib's type when it deviates.
    static let cases: [(name: String, bytes: [UInt8], ours: String, glib: String?)] = [
        // Literals: the case-insensitive one is found first, whatever the case.
        ("Abc", junk, "application/x-t-l2", nil), ("ABC", junk, "application/x-t-l2", nil), ("abc", junk, "application/x-t-l2", nil),
        // Case-sensitive suffixes: "*.QQ" (weight 90) only for that exact case.
        ("x.QQ", junk, "application/x-t-cs", nil), ("x.qq", junk, "application/x-t-ci", nil), ("x.Qq", junk, "application/x-t-ci", nil),
        ("Zzz", junk, "application/x-t-f1", nil), ("ZZZ", junk, "application/x-t-f2", nil),
        // After a suffix match, case-insensitive wildcards are not tried (the heavier "*.x[yz]"
        // never competes with "*.xy"); case-sensitive ones are, while fewer than two matched.
        ("a.xy", junk, "application/x-t-lo", nil), ("A.XY", junk, "application/x-t-lo", nil),
        ("Ab.LO", junk, "application/x-t-any", nil), ("ab.lo", junk, "application/x-t-lo2", nil),
        // Equal weights: the longer pattern (spec); GLib takes the first listed.
        ("qrstu", junk, "application/x-t-long", "application/x-t-short"), ("qa", junk, "application/x-t-short", nil),
        // The longest suffix wins over a heavier shorter one; equal patterns: the first listed.
        ("a.b.sfx", junk, "application/x-t-sfxlong", nil), ("a.sfx", junk, "application/x-t-sfxa", nil),
        // Non-ASCII suffix patterns match (GLib compares bytes to characters and never matches them).
        ("x.ü", junk, "application/x-t-uni", "application/octet-stream"),
        // Several directories: suffix candidates from both, by weight; a literal from the first.
        ("a.both", junk, "application/x-t-both-dir", nil), ("lit", junk, "application/x-t-lit-home", nil),
        // Conflicting names settled by content.
        ("text.tdoc", text, "text/x-t-doc", nil), ("magic.tdoc", a("TDOC"), "application/x-t-docbin", nil),
        ("strong.tdoc", a("STRONG"), "application/x-t-strong", nil), ("junk.tdoc", junk, "text/x-t-doc", nil),
        // Magic: priorities, nested matches, ranges, masks, several directories.
        ("strong", a("STRONG"), "application/x-t-strong", nil), ("weak", a("STRANGE"), "application/x-t-weak", nil),
        ("nested-yes", a("NEST1234ED"), "application/x-t-nested", nil), ("nested-no", a("NEST1234XX"), "application/octet-stream", nil),
        ("range-in", a("0123456789FINDME"), "application/x-t-range", nil),
        // Beyond the range; and beyond the database's magic extent (26 bytes here), which is all
        // that is read of a file: its text start makes it text/plain, as for gio.
        ("range-out", a(String(repeating: "x", count: 30) + "FINDME"), "text/plain", nil),
        ("mask", a("MAzz"), "application/x-t-mask", nil), ("tie", a("TIE!"), "application/x-t-tie-home", nil),
        ("high", a("HIGH"), "application/x-t-high-dir", nil),
    ]

    @Test func globAndMagicRulesAgreeWithGio() throws {
        let fixture = MimeFixture()
        try fixture.install(ContentTypeRulesTests.home, level: 0)
        try fixture.install(ContentTypeRulesTests.dataDir, level: 1)
        let types = fixture.database()
        #expect(types.cacheCount == 2)
        let paths = ContentTypeRulesTests.cases.map { fixture.file($0.name, $0.bytes) }
        let gio = try fixture.gioTypes(paths)
        for (c, path) in zip(ContentTypeRulesTests.cases, paths) {
            #expect(types.contentType(ofFileAt: path) == c.ours, "\(c.name)")
            #expect(gio[path] == (c.glib ?? c.ours), "gio: \(c.name)")
        }
    }

    @Test func guessesFromNameAndData() throws {
        let fixture = MimeFixture()
        try fixture.install(ContentTypeRulesTests.home, level: 0)
        let types = fixture.database()
        #expect(types.contentTypes(forName: "junk.tdoc") == ["text/x-t-doc", "application/x-t-docbin"])
        #expect(types.contentType(forName: "dir/x.QQ") == "application/x-t-cs")
        #expect(types.contentType(forName: "nothing-matches") == nil)
        #expect(types.guess(name: "junk.tdoc", data: nil) == ContentTypeGuess(type: "text/x-t-doc", isUncertain: true))
        #expect(types.guess(name: "junk.tdoc", data: ContentTypeRulesTests.a("TDOC")) == ContentTypeGuess(type: "application/x-t-docbin", isUncertain: false))
        #expect(types.guess(name: "folder/", data: nil) == ContentTypeGuess(type: "inode/directory", isUncertain: true))
        #expect(types.guess(name: nil, data: nil) == ContentTypeGuess(type: "application/octet-stream", isUncertain: true))
        #expect(types.guess(name: nil, data: []) == ContentTypeGuess(type: "application/x-zerosize", isUncertain: false))
        #expect(types.guess(name: "x.strong", data: []).type == "application/x-t-strong")
        #expect(types.contentType(forData: ContentTypeRulesTests.text) == "text/plain")
        #expect(types.contentType(forData: ContentTypeRulesTests.junk) == "application/octet-stream")
        #expect(types.contentType(forData: ContentTypeRulesTests.a("NEST1234ED"), name: "whatever") == "application/x-t-nested")
    }

    @Test func hierarchy() throws {
        let fixture = MimeFixture()
        try fixture.install(ContentTypeRulesTests.home, level: 0)
        try fixture.install(ContentTypeRulesTests.dataDir, level: 1)
        let types = fixture.database()
        #expect(types.canonicalType("application/x-t-old-child") == "application/x-t-child")
        #expect(types.canonicalType("application/x-t-dir-alias") == "application/x-t-parent")
        #expect(types.canonicalType("application/x-unknown") == "application/x-unknown")
        #expect(types.declaredParents(of: "application/x-t-old-child") == ["application/x-t-parent"])
        #expect(types.parentChain(of: "application/x-t-old-child")
            == ["application/x-t-child", "application/x-t-parent", "text/x-t-base", "text/plain", "application/octet-stream"])
        #expect(types.parentChain(of: "inode/directory") == ["inode/directory"])
        #expect(types.parentChain(of: "application/x-unknown") == ["application/x-unknown", "application/octet-stream"])
        #expect(types.parentChain(of: "text/x-new") == ["text/x-new", "text/plain", "application/octet-stream"])
        #expect(types.isSubclass("application/x-t-old-child", of: "text/x-t-base"))
        #expect(types.isSubclass("application/x-t-child", of: "text/plain"))
        #expect(types.isSubclass("application/x-t-child", of: "text/*"))
        #expect(types.isSubclass("application/x-t-child", of: "application/x-t-dir-alias"))
        #expect(types.isSubclass("image/png", of: "image/*"))
        #expect(types.isSubclass("image/png", of: "application/octet-stream"))
        #expect(!types.isSubclass("inode/directory", of: "application/octet-stream"))
        #expect(!types.isSubclass("application/x-t-parent", of: "application/x-t-child"))
        // A loop in the declared parents ends.
        #expect(!types.isSubclass("application/x-t-loop-a", of: "image/png"))
        #expect(types.isSubclass("application/x-t-loop-a", of: "application/x-t-loop-b"))
        #expect(types.parentChain(of: "application/x-t-loop-a")
            == ["application/x-t-loop-a", "application/x-t-loop-b", "application/octet-stream"])
    }

    @Test func reloadsWhenTheCacheIsReplaced() throws {
        let fixture = MimeFixture()
        try fixture.install(#"<mime-type type="application/x-t-one"><glob pattern="*.one"/></mime-type>"#)
        let types = fixture.database()
        #expect(types.contentType(forName: "a.one") == "application/x-t-one")
        #expect(!types.reloadIfChanged())
        try fixture.install(#"<mime-type type="application/x-t-two"><glob pattern="*.two"/></mime-type>"#)
        #expect(types.reloadIfChanged())
        #expect(types.contentType(forName: "a.one") == nil)
        #expect(types.contentType(forName: "a.two") == "application/x-t-two")
        unlink(fixture.mimeDir(0) + "/mime.cache")
        #expect(types.reloadIfChanged())
        #expect(types.cacheCount == 0)
        #expect(types.contentType(forName: "a.two") == nil)
        // A directory that appears later is picked up by the next check.
        try fixture.install(#"<mime-type type="application/x-t-three"><glob pattern="*.three"/></mime-type>"#, level: 1)
        #expect(types.reloadIfChanged())
        #expect(types.contentType(forName: "a.three") == "application/x-t-three")
        #expect(types.directories == [fixture.mimeDir(0), fixture.mimeDir(1)])
    }
}
