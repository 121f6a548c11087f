import Foundation
import LinuxSystem
import Testing

/// The one JSON reader and writer (``JSONValue``, LinuxSystem): what it writes every reader reads
/// back (its own and Foundation's), escapes and unicode both ways, numbers kept exact, and bad
/// input — malformed, invalid UTF-8, nested too deep — an error, never a crash or a deep recursion.
@Suite struct JSONValueTests {
    @Test func everyScalarRoundTrips() throws {
        let text = "a\"b\\c/\n\r\t\u{0}\u{8}\u{C}\u{1F}\u{7F}\u{2028}\u{2029}é😀"
        let value = JSONValue.object([("s", .string(text)), ("n", .number(-12)), ("f", .number(1.5)), ("b", .bool(false)), ("z", .null),
                                      ("a", .array([.array([]), .object([])]))])
        #expect(!value.text.contains("\n") && !value.text.contains("\u{2028}"), "one line, for any reader")
        #expect(value.text.contains("\\u007f") && value.text.contains("\\u2028") && value.text.contains("\\u0000"))
        #expect(try JSONValue(parsing: Array(value.text.utf8)) == value)
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any])
        #expect(foundation["s"] as? String == text)
    }

    @Test func escapesAreRead() throws {
        #expect(try JSONValue(parsing: Array(#""\ud83d\ude00 \u00e9\/\b\f""#.utf8)) == .string("😀 é/\u{8}\u{C}"))
        #expect(try JSONValue(parsing: Array(#" { "a" : [ true , null ] } "#.utf8))["a"] == .array([.bool(true), .null]))
        for lone in [#""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\u12""#, #""\q""#] {
            #expect(throws: JSONValue.Failure.self, "\(lone)") { try JSONValue(parsing: Array(lone.utf8)) }
        }
    }

    @Test func numbersAreKeptExact() throws {
        #expect(try JSONValue(parsing: Array("18446744073709551615".utf8)) == .number(JSONValue.Number(UInt64.max)))
        #expect(JSONValue.number(.init(UInt64.max)).text == "18446744073709551615")
        #expect(JSONValue.Number(2.0).text == "2" && JSONValue.Number(1.5).text == "1.5" && JSONValue.Number(Double.infinity).text == "null")
        #expect(JSONValue.Number("1e-05")?.double == 1e-05)
        for bad in ["1.", "-", "+1", "01", "1e", ".5", "0x10", "1 "] { #expect(JSONValue.Number(bad) == nil, "\(bad)") }
    }

    @Test func malformedInputIsAnErrorNeverACrash() throws {
        let bad: [[UInt8]] = ["", " ", "[", "]", "{", "{\"a\" 1}", "{\"a\":}", "{a:1}", "[1,]", "[1 2]", "01", "-", "tru", "nul", "\"abc",
                              "\"a\nb\"", "[1] x", "{\"a\":1,}", "\u{FEFF}1"].map { Array($0.utf8) } + [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22]]
        for bytes in bad {
            #expect(throws: JSONValue.Failure.self, "\(bytes)") { try JSONValue(parsing: bytes) }
            #expect(JSONValue.parse(bytes) == nil)
        }
    }

    @Test func nestingIsLimitedAndDeepInputIsAnError() throws {
        func nested(_ depth: Int) -> [UInt8] { Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8) }
        #expect(throws: Never.self) { try JSONValue(parsing: nested(JSONValue.maximumDepth)) }
        #expect(throws: JSONValue.Failure.self) { try JSONValue(parsing: nested(JSONValue.maximumDepth + 1)) }
        // Far deeper than any stack would take by recursion: refused at the limit.
        #expect(throws: JSONValue.Failure.self) { try JSONValue(parsing: nested(1_000_000)) }
        #expect(throws: JSONValue.Failure.self) { try JSONValue(parsing: Array(String(repeating: "{\"a\":", count: 200_000).utf8)) }
    }

    @Test func anObjectsMemberIsWrittenOnceAndReadFirst() throws {
        #expect(JSONValue.object([("a", .number(1)), ("b", .null), ("a", .number(2))]).text == #"{"a":1,"b":null}"#)
        #expect(try JSONValue(parsing: Array(#"{"a":1,"a":2}"#.utf8))["a"] == .number(1))
        #expect(JSONValue.string("x")["a"] == nil && JSONValue.string("x").string == "x")
    }
}
