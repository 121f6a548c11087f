import DBusTestSupport
import Foundation
import SchemeBridgeContract
import Testing

/// `schemebridge share` end to end: files, text and stdin data reach a target; `--list`;
/// `--wait` prints the Response with `open --wait`'s exit statuses (3 NoTarget, 5 cancelled).
@Suite struct ShareCLITests {
    static func cli(_ f: ServiceFixture, _ args: [String], stdin: String? = nil) async throws -> ProcessResult {
        try await Tools.run([try Built.executable("schemebridge"), "share"] + args,
                            environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": ""], stdin: stdin)
    }

    @Test func filesTextAndStandardInputReachTheTarget() async throws {
        let f = try ServiceFixture()
        try ShareTests.entry(f, "notes.desktop", types: "text/*;application/json;", program: try ShareTests.target(f, "notes"))
        let a = f.root.appendingPathComponent("a.txt").path, b = f.root.appendingPathComponent("b.md").path
        try "alpha\n".write(toFile: a, atomically: true, encoding: .utf8)
        try "# beta\n".write(toFile: b, atomically: true, encoding: .utf8)
        let list = try await Self.cli(f, ["--list", "text/markdown"])
        #expect(list.status == 0 && list.stdout == "notes.desktop:share\tSend to notes.desktop\tsend\tapp\n", "\(list.stdout)\(list.stderr)")
        let shared = try await Self.cli(f, [a, b, "--to", "notes.desktop:share", "--wait"])
        #expect(shared.status == 0 && shared.stdout == "status=success\ntarget=notes.desktop:share\n", "\(shared.stdout)\(shared.stderr)")
        let argv = try #require(await f.recordedArgv("notes"))
        #expect(argv.map { ($0 as NSString).lastPathComponent } == ["a.txt", "b.md"], "\(argv)")
        let json = try await Self.cli(f, ["--type", "application/json", "--to", "notes.desktop:share", "--wait", "--json"], stdin: "{\"k\": 1}")
        #expect(json.status == 0 && json.stdout.contains(#""status":"success""#), "\(json.stdout)\(json.stderr)")
    }

    @Test func exitStatusesFollowOpenWait() async throws {
        let f = try ServiceFixture()
        try ShareTests.entry(f, "notes.desktop", types: "text/plain", program: try ShareTests.target(f, "notes"))
        #expect(try await Self.cli(f, ["--url", "https://example.org/", "--to", "other.desktop:x"]).status == 3)
        #expect(try await Self.cli(f, [f.root.appendingPathComponent("missing").path]).status == 2)
        #expect(try await Self.cli(f, ["--text", "a", "--url", "b:c"]).status == 1)
        let chooser = f.bin.appendingPathComponent("sheet").path
        try "#!/bin/sh\nhead -n 1 > /dev/null\necho '{\"version\":1,\"answer\":\"cancelled\"}'\n".write(toFile: chooser, atomically: true, encoding: .utf8)
        chmod(chooser, 0o755)
        try f.writeConfig("[Chooser]\nCommand=\(chooser)\n")
        let cancelled = try await Self.cli(f, ["--text", "words", "--wait"])
        #expect(cancelled.status == 5 && cancelled.stdout == "status=cancelled\n", "\(cancelled.stdout)\(cancelled.stderr)")
    }
}
