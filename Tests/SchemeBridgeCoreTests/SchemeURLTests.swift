import Testing
@testable import SchemeBridgeCore

@Suite struct SchemeURLTests {
    @Test(arguments: [
        ("todolist://add?task=milk", "todolist"),
        ("ToDoList:x", "todolist"),
        ("a+b-c.d:rest", "a+b-c.d"),
        ("x:", "x"),
        ("mailto:someone@example.org", "mailto"),
        ("s:with space \"quotes\" $(id) `id` ; & | > < 'q'", "s"),
        ("s:-leading-dash", "s"),
        ("s:ünïcödé ✓", "s"),
    ])
    func accepts(url: String, scheme: String) throws {
        let u = try SchemeURL(url)
        #expect(u.scheme.name == scheme)
        #expect(u.string == url)
    }

    @Test func refusesEmptyAndMissingScheme() {
        #expect(throws: SchemeURLError.empty) { try SchemeURL("") }
        #expect(throws: SchemeURLError.missingScheme) { try SchemeURL("todolist") }
        #expect(throws: SchemeURLError.missingScheme) { try SchemeURL(":foo") }
        #expect(throws: SchemeURLError.invalidScheme("1abc")) { try SchemeURL("1abc:x") }
        #expect(throws: SchemeURLError.invalidScheme("/tmp/a")) { try SchemeURL("/tmp/a:b") }
        #expect(throws: SchemeURLError.invalidScheme("to do")) { try SchemeURL("to do:x") }
        #expect(throws: SchemeURLError.invalidScheme("tödo")) { try SchemeURL("tödo:x") }
    }

    @Test(arguments: [0x00, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0x2028, 0x2029] as [UInt32])
    func refusesControlCharacters(scalar: UInt32) {
        let s = "todo://a" + String(Unicode.Scalar(scalar)!) + "b"
        #expect(throws: SchemeURLError.controlCharacter(scalar: scalar, offset: 8)) { try SchemeURL(s) }
    }

    @Test func sizeLimit() throws {
        let prefix = "s:"
        let ok = prefix + String(repeating: "a", count: SchemeURL.maximumByteCount - prefix.utf8.count)
        #expect(try SchemeURL(ok).string.utf8.count == 65536)
        let tooLong = ok + "a"
        #expect(throws: SchemeURLError.tooLong(byteCount: 65537, limit: 65536)) { try SchemeURL(tooLong) }
    }

    @Test func errorMessagesAreActionable() {
        #expect(SchemeURLError.missingScheme.description.contains("scheme"))
        #expect(SchemeURLError.controlCharacter(scalar: 10, offset: 3).description.contains("U+000A"))
        #expect(SchemeURLError.invalidScheme("1x").description.contains("'1x'"))
    }

    @Test func bareScheme() throws {
        #expect(try Scheme("TodoList").name == "todolist")
        #expect(try Scheme("todolist").mimeType == "x-scheme-handler/todolist")
        #expect(throws: SchemeURLError.invalidScheme("todo:")) { try Scheme("todo:") }
        #expect(throws: SchemeURLError.empty) { try Scheme("") }
        #expect(throws: SchemeURLError.invalidScheme("-x")) { try Scheme("-x") }
        #expect(Scheme.fromMimeType("X-Scheme-Handler/FOO") == "foo")
        #expect(Scheme.fromMimeType("x-scheme-handler/") == nil)
        #expect(Scheme.fromMimeType("text/plain") == nil)
        #expect(Scheme.fromMimeType("x-scheme-handler/a b") == nil)
    }

    @Test func localFilePath() throws {
        #expect(try SchemeURL("file:///tmp/a%20b.txt").localFilePath == "/tmp/a b.txt")
        #expect(try SchemeURL("file://localhost/etc/hosts").localFilePath == "/etc/hosts")
        #expect(try SchemeURL("file://remote/etc/hosts").localFilePath == nil)
        #expect(try SchemeURL("file:///x%00y").localFilePath == nil)
        #expect(try SchemeURL("todo:///tmp/x").localFilePath == nil)
        #expect(try SchemeURL("file:/tmp/q?x#y").localFilePath == "/tmp/q")
    }
}
