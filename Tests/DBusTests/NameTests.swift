import Testing
@testable import DBus

@Suite struct NameTests {
    /// A quote inside a match rule value is written '\'' (close, escaped, reopen), wherever it stands.
    @Test(arguments: [("it's", #"'it'\''s'"#), ("'", #"''\'''"#), ("a''b", #"'a'\'''\''b'"#), ("'x'", #"''\''x'\'''"#), ("", "''"), ("plain", "'plain'")])
    func matchRuleQuotesArguments(_ value: String, _ quoted: String) {
        #expect(MatchRule(arg0: value).text == "type='signal',arg0=" + quoted)
    }

    @Test(arguments: ["org.example.App", "org.example.Todo1", ":1.42", ":1.0", "a.b", "org.ex-ample._x", String(repeating: "a.", count: 127) + "b"])
    func validBusNames(_ text: String) throws {
        #expect(try BusName(text).rawValue == text)
    }

    @Test(arguments: ["", "org", ".org.x", "org..x", "org.x.", "org.1x", "org.x y", "org.x/y", "ørg.x", ":", String(repeating: "a.", count: 128) + "b", "org.x\0y"])
    func invalidBusNames(_ text: String) {
        #expect(throws: InvalidNameError.self) { try BusName(text) }
    }

    @Test func uniqueNamesMayStartWithDigits() throws {
        #expect(BusName(":1.42").isUnique)  // a literal: checked, crashes if invalid
        let text = "1.42"
        #expect(throws: InvalidNameError.self) { try BusName(text) }
    }

    @Test(arguments: ["/", "/a", "/org/example/Todo1", "/a_b/C9"])
    func validPaths(_ text: String) throws {
        #expect(try ObjectPath(text).rawValue == text)
    }

    @Test(arguments: ["", "a", "//", "/a/", "/a//b", "/a-b", "/a.b", "/é", "/a b", "/a\0"])
    func invalidPaths(_ text: String) {
        #expect(throws: InvalidNameError.self) { try ObjectPath(text) }
    }

    @Test func interfaceAndErrorNames() throws {
        let good = ["org.freedesktop.DBus.Properties", "org.example.Todo1.Error.InvalidURL"]
        for g in good {
            _ = try InterfaceName(g)
            _ = try ErrorName(g)
        }
        for bad in ["", "org", "org.", "org.-x", "org.x-y", "org.9x", String(repeating: "a.", count: 128) + "b"] {
            #expect(throws: InvalidNameError.self) { try InterfaceName(bad) }
            #expect(throws: InvalidNameError.self) { try ErrorName(bad) }
        }
    }

    @Test func memberNames() throws {
        for g in ["OpenURL", "_x9"] { _ = try MemberName(g) }
        for bad in ["", "9x", "a.b", "a-b", "a b", String(repeating: "a", count: 256)] {
            #expect(throws: InvalidNameError.self) { try MemberName(bad) }
        }
    }

    @Test func errorMessagesNameTheProblem() {
        let text = "org..x"
        do {
            _ = try BusName(text)
            Issue.record("accepted an invalid name")
        } catch {
            #expect(error.description == "invalid bus name 'org..x': empty element")
            #expect(error.dbusError.name == .invalidArgs)
        }
    }
}

@Suite struct SignatureTests {
    @Test(arguments: ["", "s", "a{sv}", "(ii)", "a(sa{sv})", "aay", "a{oa{sa{sv}}}", "ybnqiuxtdsoghv"])
    func valid(_ text: String) throws {
        let sig = try Signature(text)
        #expect(sig.rawValue == text)
        #expect(Signature(sig.types).rawValue == text)
    }

    @Test(arguments: ["a", "(", "()", "(i", "i)", "{sv}", "a{vs}", "a{s}", "a{svs}", "a{(i)s}", "z", "a{sv", String(repeating: "s", count: 256)])
    func invalid(_ text: String) {
        #expect(throws: InvalidNameError.self) { try Signature(text) }
    }

    @Test func nestingLimits() throws {
        _ = try Signature(String(repeating: "a", count: 32) + "s")
        #expect(throws: InvalidNameError.self) { try Signature(String(repeating: "a", count: 33) + "s") }
        _ = try Signature(String(repeating: "(", count: 32) + "s" + String(repeating: ")", count: 32))
        #expect(throws: InvalidNameError.self) { try Signature(String(repeating: "(", count: 33) + "s" + String(repeating: ")", count: 33)) }
    }

    @Test func singleType() throws {
        #expect(try Signature.singleType("a{sv}") == .dictionary(key: .string, value: .variant))
        #expect(throws: InvalidNameError.self) { try Signature.singleType("ss") }
    }
}
