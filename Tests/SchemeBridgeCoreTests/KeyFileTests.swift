import Testing
@testable import SchemeBridgeCore

@Suite struct KeyFileTests {
    @Test func groupsKeysCommentsAndSpacing() throws {
        let text = """
        # leading comment

        [Desktop Entry]
          Name = Hello World
        Type=Application
        Key[de_DE]=Hallo
        Empty=

        [Desktop Action new]
        Name=New
        """
        let kf = try KeyFile(text: text, path: "t.desktop")
        #expect(kf.groups.map(\.name) == ["Desktop Entry", "Desktop Action new"])
        let g = try #require(kf.group("Desktop Entry"))
        #expect(g.string("Name") == "Hello World")
        #expect(g.rawValue("Key", locale: "de_DE") == "Hallo")
        #expect(g.string("Empty") == "")
        #expect(g.string("Missing") == nil)
        #expect(kf.group("Desktop Action new")?.string("Name") == "New")
        #expect(g.entry("Type")?.line == 5)
    }

    @Test func escapes() {
        #expect(KeyFileValue.unescape(#"a\sb\nc\td\re\\f"#) == "a b\nc\td\re\\f")
        #expect(KeyFileValue.unescape(#"keep \$ \" \` \x"#) == #"keep \$ \" \` \x"#)
        #expect(KeyFileValue.unescape(#"trailing\"#) == #"trailing\"#)
        #expect(KeyFileValue.unescape(#"\\\\"#) == #"\\"#)
        #expect(KeyFileValue.escape(" a\\b\nc") == #"\sa\\b\nc"#)
    }

    @Test func lists() {
        #expect(KeyFileValue.splitList("a;b;c;") == ["a", "b", "c"])
        #expect(KeyFileValue.splitList("a;b") == ["a", "b"])
        #expect(KeyFileValue.splitList(#"a\;b;c\sd;"#) == ["a;b", "c d"])
        #expect(KeyFileValue.splitList(";;x;;") == ["x"])
        #expect(KeyFileValue.joinList(["a;b", "c"]) == #"a\;b;c;"#)
    }

    @Test func booleans() throws {
        let kf = try KeyFile(text: "[G]\nA=true\nB=false\nC=1\nD=0\nE=yes\nF=True\n", path: "b")
        let g = try #require(kf.group("G"))
        #expect(g.boolean("A") == true)
        #expect(g.boolean("B") == false)
        #expect(g.boolean("C") == true)
        #expect(g.boolean("D") == false)
        #expect(g.boolean("E") == nil)
        #expect(g.boolean("F") == nil)
        #expect(g.boolean("Z") == nil)
    }

    @Test func duplicateKeysLaterWinsWithWarning() throws {
        let kf = try KeyFile(text: "[G]\nA=1\nB=x\nA=2\n[H]\nX=1\n[G]\nB=y\n", path: "d")
        let g = try #require(kf.group("G"))
        #expect(g.string("A") == "2")
        #expect(g.string("B") == "y")
        #expect(kf.groups.count == 2)
        #expect(kf.warnings.count == 3)
        #expect(kf.warnings[0].description == "d:4: key 'A' repeats the one on line 2; the later value is used")
        #expect(kf.warnings[1].message.contains("group [G] repeats"))
    }

    @Test func syntaxErrorsHaveFileAndLine() {
        func error(_ text: String) -> KeyFileError? {
            do {
                _ = try KeyFile(text: text, path: "/x/e.desktop")
                return nil
            } catch { return error }
        }
        #expect(error("A=1\n[G]\n")?.line == 1)
        #expect(error("[G]\nno equals sign\n")?.description == "/x/e.desktop:2: expected a comment, a [group] header or key=value")
        #expect(error("[G]\n[bad\n")?.line == 2)
        #expect(error("[G]\n=v\n")?.line == 2)
        #expect(error("[G]\nK[]=v\n")?.line == 2)
        #expect(error("[G]\nK\u{1}ey=v\n")?.line == 2)
        #expect(error("[G]\nK ey=v\n") == nil)
    }

    @Test func nonUTF8AndNULReportTheLine() {
        var bytes = Array("[Desktop Entry]\nName=ok\nComment=".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\n".utf8)
        #expect(throws: KeyFileError(path: "/a.desktop", line: 3, message: "is not valid UTF-8")) {
            try KeyFile(bytes: bytes, path: "/a.desktop")
        }
        let nul = Array("[G]\nA=1\nB=x".utf8) + [0] + Array("y\n".utf8)
        #expect(throws: KeyFileError(path: "/b", line: 3, message: "contains a NUL byte")) {
            try KeyFile(bytes: nul, path: "/b")
        }
    }

    @Test func crlfAndNoTrailingNewline() throws {
        let kf = try KeyFile(text: "[G]\r\nA=1\r\nB=2", path: "c")
        #expect(kf.group("G")?.string("A") == "1")
        #expect(kf.group("G")?.string("B") == "2")
    }

    @Test(arguments: [
        ("de_DE.UTF-8@euro", "Name[de_DE@euro]"),
        ("de_DE.UTF-8", "Name[de_DE]"),
        ("de_AT", "Name[de]"),
        ("fr_FR@euro", "Name[fr@euro]"),
        ("sr_RS@latin", "Name[sr_RS@latin]"),
        ("sr_RS", "Name[sr_RS]"),
        ("C", "Name"),
        ("ja_JP", "Name"),
    ])
    func localeMatching(locale: String, expected: String) throws {
        let text = """
        [Desktop Entry]
        Name=Name
        Name[de_DE@euro]=Name[de_DE@euro]
        Name[de_DE]=Name[de_DE]
        Name[de]=Name[de]
        Name[fr@euro]=Name[fr@euro]
        Name[fr]=Name[fr]
        Name[sr_RS.UTF-8@latin]=Name[sr_RS@latin]
        Name[sr_RS]=Name[sr_RS]
        """
        let kf = try KeyFile(text: text, path: "l")
        let g = try #require(kf.group("Desktop Entry"))
        #expect(g.localizedString("Name", matcher: LocaleMatcher(locale: locale)) == expected)
    }

    @Test func localeEnvironmentPrecedence() {
        #expect(LocaleMatcher(environment: ["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR", "LC_ALL": ""]).candidates == ["fr_FR", "fr"])
        #expect(LocaleMatcher(environment: ["LANG": "de_DE", "LC_ALL": "it_IT@x"]).candidates == ["it_IT@x", "it_IT", "it@x", "it"])
        #expect(LocaleMatcher(environment: ["LANG": "POSIX"]).candidates == [])
        #expect(LocaleMatcher(environment: [:]).candidates == [])
    }
}

@Suite struct KeyFileDocumentTests {
    static let sample = """
    # My associations — hand edited ✓
    [Default Applications]
    text/html=firefox.desktop
    x-scheme-handler/todo=old.desktop;

    ; not a comment in the spec, kept anyway
    [Unknown Group]
    Weird Key With Spaces = value
    x-scheme-handler/todo=untouched.desktop

    [Added Associations]
    x-scheme-handler/todo=a.desktop;old.desktop;
    image/png=eog.desktop;
    """

    @Test func unchangedRoundTripIsByteForByte() {
        for text in [KeyFileDocumentTests.sample, KeyFileDocumentTests.sample + "\n", "", "\n\n", "no newline", "a\r\nb\r\n"] {
            let doc = KeyFileDocument(bytes: Array(text.utf8))
            #expect(doc.bytes == Array(text.utf8))
        }
        let invalid: [UInt8] = [0x5B, 0x47, 0x5D, 0x0A, 0xFF, 0xFE, 0x0A, 0x41, 0x3D, 0x80]
        #expect(KeyFileDocument(bytes: invalid).bytes == invalid)
    }

    @Test func setDefaultChangesOnlyTheNeededLines() {
        var doc = KeyFileDocument(bytes: Array(KeyFileDocumentTests.sample.utf8))
        MimeAppsEditor.applyDefault(scheme: "todo", desktopID: "new.desktop", to: &doc)
        let expected = KeyFileDocumentTests.sample
            .replacingOccurrences(of: "x-scheme-handler/todo=old.desktop;\n", with: "x-scheme-handler/todo=new.desktop\n")
            .replacingOccurrences(of: "x-scheme-handler/todo=a.desktop;old.desktop;", with: "x-scheme-handler/todo=new.desktop;a.desktop;old.desktop;")
        #expect(String(decoding: doc.bytes, as: UTF8.self) == expected)
    }

    @Test func addsGroupsAndKeysWhereMissing() {
        var doc = KeyFileDocument(bytes: Array("# only a comment".utf8))
        MimeAppsEditor.applyDefault(scheme: "todo", desktopID: "t.desktop", to: &doc)
        #expect(String(decoding: doc.bytes, as: UTF8.self) == """
        # only a comment

        [Default Applications]
        x-scheme-handler/todo=t.desktop

        [Added Associations]
        x-scheme-handler/todo=t.desktop;

        """)
        var empty = KeyFileDocument(bytes: [])
        MimeAppsEditor.applyDefault(scheme: "x", desktopID: "t.desktop", to: &empty)
        #expect(String(decoding: empty.bytes, as: UTF8.self) == "[Default Applications]\nx-scheme-handler/x=t.desktop\n\n[Added Associations]\nx-scheme-handler/x=t.desktop;\n")
        // A key is inserted after the last entry of its group, before blank lines and comments.
        var doc2 = KeyFileDocument(bytes: Array("[Default Applications]\na/b=c.desktop\n\n# trailing\n[Other]\nk=v\n".utf8))
        MimeAppsEditor.applyDefault(scheme: "s", desktopID: "d.desktop", to: &doc2)
        #expect(String(decoding: doc2.bytes, as: UTF8.self) == "[Default Applications]\na/b=c.desktop\nx-scheme-handler/s=d.desktop\n\n# trailing\n[Other]\nk=v\n\n[Added Associations]\nx-scheme-handler/s=d.desktop;\n")
    }

    @Test func removesFromRemovedAssociations() {
        var doc = KeyFileDocument(bytes: Array("[Removed Associations]\nx-scheme-handler/s=a.desktop;b.desktop;\nx-scheme-handler/t=a.desktop;\n".utf8))
        MimeAppsEditor.applyDefault(scheme: "s", desktopID: "a.desktop", to: &doc)
        MimeAppsEditor.applyDefault(scheme: "t", desktopID: "a.desktop", to: &doc)
        let text = String(decoding: doc.bytes, as: UTF8.self)
        #expect(text.hasPrefix("[Removed Associations]\nx-scheme-handler/s=b.desktop;\n\n[Default Applications]"))
        #expect(!text.contains("x-scheme-handler/t=a.desktop;\n[") )
        #expect(doc.rawValue(inGroup: "Removed Associations", where: { $0 == "x-scheme-handler/t" }) == nil)
    }

    @Test func caseInsensitiveSchemeKeyAndCRLF() {
        var doc = KeyFileDocument(bytes: Array("[Default Applications]\r\nX-Scheme-Handler/Todo=old.desktop\r\n".utf8))
        MimeAppsEditor.applyDefault(scheme: "todo", desktopID: "n.desktop", to: &doc)
        let text = String(decoding: doc.bytes, as: UTF8.self)
        #expect(text.hasPrefix("[Default Applications]\r\nx-scheme-handler/todo=n.desktop\r\n"))
    }
}
