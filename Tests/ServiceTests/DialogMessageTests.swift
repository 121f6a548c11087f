import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The dialogs' message (docs/CONTRACT.md, "The dialogs"), checked on both sides: the service's
/// writer against `JSONDecoder` (the Codable schema) and against the dialog's own reader
/// (dialogs/schemebridge_dialogs/message.py, run by the system's python3), and the service's
/// reader against what the dialog writes and against malformed answers (errors, never cancels).
@Suite struct DialogMessageTests {
    static let share = DialogRequest(
        kind: .share, subject: "x-schemebridge/share", caller: .init(id: "org.example.Photos", name: "Photos \"2\"\n"),
        candidates: [.init(id: "a.desktop:share", name: "Sketch", icon: "sketch", kind: .app), .init(id: "kdeconnect:1", name: "Pixel", icon: "", kind: .device)],
        canRemember: true, activationToken: "tok", parentWindow: "x11:0x2a",
        share: .init(count: 2, types: ["image/png", "text/x-uri"],
                     items: [.init(kind: .file, name: "ü\u{2028}.png", type: "image/png", size: 12_000_000, path: "/proc/1/fd/7"),
                             .init(kind: .url, url: "https://example.org/?a=1&b=\u{1}")]))

    @Test func theRequestIsOneLineTheCodableSchemaReads() throws {
        let line = Self.share.line
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        let decoded = try JSONDecoder().decode(DialogRequest.self, from: Data(line))
        #expect(decoded == Self.share)
        // And what JSONEncoder writes, our reader reads the same way (the answer side).
        let answer = DialogAnswer(.chosen, id: "a.desktop:share", always: true)
        #expect(try DialogAnswer(output: Array(try JSONEncoder().encode(answer)) + [0x0A]) == answer)
    }

    @Test func theDialogReadsTheRequestTheServiceWrites() async throws {
        let script = """
            import sys
            sys.path.insert(0, sys.argv[1])
            from schemebridge_dialogs import message
            r = message.parse_request(sys.stdin.buffer.read())
            print(r.kind, r.caller_name.replace("\\n", "|"), r.can_remember, r.parent_window, [c.kind for c in r.candidates],
                  r.share.count, r.share.items[0].size, r.share.items[1].url.encode("unicode_escape").decode())
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, Built.packageRoot.appendingPathComponent("dialogs").path],
                                    stdin: String(decoding: Self.share.line, as: UTF8.self))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "share Photos \"2\"| True x11:0x2a ['app', 'device'] 2 12000000 https://example.org/?a=1&b=\\x01\n")
    }

    @Test func theServiceReadsTheDialogsAnswers() async throws {
        let script = """
            import sys
            sys.path.insert(0, sys.argv[1])
            from schemebridge_dialogs import message
            sys.stdout.buffer.write({"chosen": message.chosen("b.desktop", True), "cancelled": message.cancelled(),
                                     "failed": message.failed("no display"),
                                     "token": message.chosen("b.desktop", False, "fresh-token_TIME9")}[sys.argv[2]])
            """
        for (which, expected) in [("chosen", DialogAnswer(.chosen, id: "b.desktop", always: true)), ("cancelled", DialogAnswer(.cancelled)),
                                  ("failed", DialogAnswer(.failed, reason: "no display")),
                                  ("token", DialogAnswer(.chosen, id: "b.desktop", always: false, activationToken: "fresh-token_TIME9"))] {
            let r = try await Tools.run([Tools.systemPython, "-c", script, Built.packageRoot.appendingPathComponent("dialogs").path, which])
            #expect(try DialogAnswer(output: Array(r.stdout.utf8)) == expected)
        }
    }

    @Test func malformedAnswersAreErrors() throws {
        for bad in ["", "\n", "chosen\n", "b.desktop\talways\n", "[]", "{\"answer\":\"chosen\",\"id\":\"a\"}", "{\"version\":2,\"answer\":\"cancelled\"}",
                    "{\"version\":1,\"answer\":\"maybe\"}", "{\"version\":1,\"answer\":\"chosen\"}", "{\"version\":1,\"answer\":\"chosen\",\"id\":\"\"}",
                    "{\"version\":1,\"answer\":\"chosen\",\"id\":7}", "{\"version\":1,\"answer\":\"chosen\",\"id\":\"a\",\"always\":\"yes\"}",
                    "{\"version\":1,\"answer\":\"cancelled\"} trailing", "{\"version\":1,\"answer\":\"chosen\",\"id\":\"\\ud800\"}",
                    // An activation token that is none: of another type, empty, with a control character.
                    "{\"version\":1,\"answer\":\"chosen\",\"id\":\"a\",\"activation-token\":7}",
                    "{\"version\":1,\"answer\":\"chosen\",\"id\":\"a\",\"activation-token\":\"\"}",
                    "{\"version\":1,\"answer\":\"chosen\",\"id\":\"a\",\"activation-token\":\"a\\nb\"}",
                    String(repeating: " ", count: DialogProtocol.answerLimit + 1)] {
            #expect(throws: DialogMessageError.self, "\(bad.prefix(80))") { try DialogAnswer(output: Array(bad.utf8)) }
        }
        // Invalid UTF-8 inside a string is refused, not replaced.
        #expect(throws: DialogMessageError.self) { try DialogAnswer(output: Array("{\"version\":1,\"answer\":\"chosen\",\"id\":\"a".utf8) + [0xFF, 0x22, 0x7D]) }
        // Only the first line counts; white space and unknown members are fine.
        let spaced = try DialogAnswer(output: Array(" { \"version\" : 1 , \"answer\" : \"cancelled\", \"later\": [1, {\"x\": null}] }\nnoise".utf8))
        #expect(spaced == DialogAnswer(.cancelled))
    }

    @Test func jsonRoundTripsEveryScalar() throws {
        let text = "a\"b\\c\n\r\t\u{0}\u{1F}\u{7F}\u{2028}é😀"
        let value = DialogJSON.object([("s", .string(text)), ("n", .number(-12)), ("f", .number(1.5)), ("b", .bool(false)), ("z", .null),
                                       ("a", .array([]))])
        #expect(DialogJSON.parse(Array(value.text.utf8)) == value)
        #expect(try JSONSerialization.jsonObject(with: Data(value.text.utf8)) is [String: Any])
        #expect(DialogJSON.parse(Array("\"\\ud83d\\ude00\"".utf8)) == .string("😀"))
        #expect(DialogJSON.parse(Array(String(repeating: "[", count: 40).utf8) + Array(String(repeating: "]", count: 40).utf8)) == nil)
    }
}
