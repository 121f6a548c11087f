import Foundation
import Testing
import DBusTestSupport

/// How the sheet names the sharing app (the dialog request's `caller.name`, "Share from <name>"):
/// a python script by its script, not by its interpreter; a program by its file name. A sheet
/// that records what it was told stands in for the shipped one.
@Suite struct ShareSheetCallerNameTests {
    /// The name the sheet was given when `python` ran the sharer.
    static func name(sharingWith python: String? = nil) async throws -> String {
        let x = try Xvfb(width: 320, height: 240)
        defer { x.stop() }
        let told = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-told-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: told) }
        // The dialogs' message (docs/CONTRACT.md, "The dialogs"): one request line in, one answer line out.
        let sheet = "#!/usr/bin/python3\nimport json, sys\nrequest = json.loads(sys.stdin.readline())\n"
            + "open('\(told.path)', 'w').write(request['caller']['name'])\n"
            + "print(json.dumps({'version': 1, 'answer': 'chosen', 'id': 'postcard.desktop:share'}))\n"
        let f = try ShareSheetSpareTests.fixture(x, sheet: sheet, config: "[Chooser]\nSpareSheet=false\n")
        defer { f.stop() }
        let out = try await ShareTests.share(f, #"[{"text": "a line of text"}]"#, python: try python.map { try f.pythonNamed($0) } ?? Tools.systemPython)
        #expect(ShareTests.responses(out).first?["code"] as? Int == 0, "\(out)\n\(f.serviceLog)")
        return (try? String(contentsOf: told, encoding: .utf8)) ?? "(the sheet was not run)"
    }

    @Test func aPythonScriptIsNamedByItsScript() async throws {
        #expect(try await Self.name() == "sharer.py")
    }

    @Test func aProgramIsNamedByItsFileName() async throws {
        #expect(try await Self.name(sharingWith: "photo-tool") == "photo-tool")
    }
}
