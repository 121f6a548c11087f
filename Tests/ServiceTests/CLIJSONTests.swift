import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `--json` that parses (issue 35, item 4): every subcommand's output, read by a parser that
/// rejects a key given twice (Debian's python3, `Clients/CLIConsistency/strict-json.py`), and one
/// error object — `{"exit_status","reason","dbus_error","message"}` — for every failure, the same
/// for `open`, `share`, `pick` and `which`.
@Suite struct CLIJSONTests {
    /// The objects of a `--json` output, parsed strictly: a line that is not one object, or an
    /// object with a duplicate key at any depth, fails the test.
    static func strict(_ output: String, _ comment: String) async throws -> [[String: Any]] {
        let r = try await Tools.run(Clients.command("CLIConsistency/strict-json", []), stdin: output)
        #expect(r.status == 0, "\(comment): \(r.stdout)\(r.stderr)")
        guard r.status == 0 else { return [] }
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(comment): \(r.stdout)")
    }

    /// The keys every error object has, and only those.
    static let errorKeys: Set<String> = ["exit_status", "reason", "dbus_error", "message"]
    static let reasons: [Int32: String] = [1: "usage", 2: "not_found", 3: "no_handler", 4: "failed", 5: "cancelled"]

    /// Checks that `r` failed with `status` and printed exactly one object with an `error`
    /// member of the one shape; returns that object.
    @discardableResult
    static func expectError(_ r: ProcessResult, _ status: Int32, dbusError: String? = nil, _ comment: String) async throws -> [String: Any] {
        #expect(r.status == status, "\(comment): \(r.status) \(r.stdout)\(r.stderr)")
        let objects = try await strict(r.stdout, comment)
        let failed = objects.filter { $0["error"] != nil }
        #expect(failed.count == 1, "\(comment): one object with an error: \(r.stdout)")
        let object = failed.first ?? [:]
        let error = try #require(object["error"] as? [String: Any], "\(comment): error is not an object: \(r.stdout)")
        #expect(Set(error.keys) == errorKeys, "\(comment): \(error.keys.sorted())")
        #expect(error["exit_status"] as? Int == Int(status) && error["reason"] as? String == reasons[status], "\(comment): \(error)")
        #expect(!((error["message"] as? String) ?? "").isEmpty, "\(comment): \(error)")
        #expect(error["dbus_error"] is NSNull || error["dbus_error"] is String, "\(comment): \(error)")
        if let dbusError { #expect(error["dbus_error"] as? String == dbusError, "\(comment): \(error)") }
        // What stderr said is the message.
        #expect(r.stderr.contains((error["message"] as? String)?.split(separator: "\n").first.map(String.init) ?? "\u{0}"), "\(comment): \(r.stderr)")
        return object
    }

    /// A fixture with a URL handler (`todolist`), a document handler (`text/markdown`), a share
    /// target and a pick provider, and a markdown file.
    struct World {
        let w: PasteboardCLIWorld
        var f: ServiceFixture { w.f }
        let doc: String

        init() throws {
            w = try PasteboardCLIWorld()
            try w.f.entry("a.desktop", "Name=A\nExec=\(try w.f.recorder("a")) %u\nMimeType=x-scheme-handler/todolist;text/markdown;")
            try ShareTests.entry(w.f, "notes.desktop", types: "text/*;", program: try ShareTests.target(w.f, "notes"))
            doc = w.f.root.appendingPathComponent("notes.md").path
            try "# notes\n".write(toFile: doc, atomically: true, encoding: .utf8)
        }

        /// Runs the CLI; `pick --print` makes its folder in `XDG_RUNTIME_DIR`, the fixture's root here.
        func cli(_ args: [String]) async throws -> ProcessResult {
            try await Tools.run([w.cli] + args, environment: w.environment.merging(["XDG_RUNTIME_DIR": f.root.path]) { $1 })
        }
    }

    @Test func everySubcommandsJSONParsesWithDuplicateKeysRejected() async throws {
        let world = try World()
        let f = world.f
        defer { f.stop() }
        let scan = f.root.appendingPathComponent("store.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 3, count: 100)).write(to: scan)
        await PickTests.untilLive(f, try PickTests.provider(f, ["answer:\(scan.path):image/png:scan.png"]))
        let plain = try world.w.file("plain.txt", "milk\n")
        let commands: [[String]] = [
            ["schemes"], ["list"], ["handlers", "todolist"], ["handlers", "--type", "text/markdown"], ["default", "todolist"],
            ["default", "todolist", "a.desktop"], ["can-open", "todolist://x"], ["which", "todolist://x"], ["which", world.doc],
            ["type", world.doc], ["choices"], ["integrate", "status"], ["open", "todolist://j"], ["open", world.doc],
            ["open", "--copy", world.doc], ["share", "--list", "text/plain"], ["share", plain, "--to", "notes.desktop:share", "--wait"],
            ["share", "--text", "hello", "--to", "notes.desktop:share"],
            ["pick", "--type", "image/png", "--provider", "scanner.desktop", "--print"],
            ["pasteboard", "create", "groceries"], ["pasteboard", "write", "groceries", "text/plain", plain], ["pasteboard", "types", "groceries"],
        ]
        var seen: [String: [String: Any]] = [:]
        for command in commands {
            // Pasteboards belong to the app that runs the command.
            let r = command[0] == "pasteboard" ? try await world.w.run(world.w.owner, command + ["--json"]) : try await world.cli(command + ["--json"])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            let objects = try await Self.strict(r.stdout, "\(command)")
            #expect(!objects.isEmpty, "\(command): no output")
            for o in objects {
                #expect(o["error"] == nil, "\(command): \(o)")
                let bad = CLIConsistencyTests.keys(o).filter { $0.contains { !($0.isLowercase || $0.isNumber || $0 == "_") } }
                #expect(bad.isEmpty, "\(command): keys not snake_case: \(bad)")
            }
            seen[command.joined(separator: " ")] = objects.first
        }
        // `which FILE` says the file once, and where the default comes from in its own object.
        let whichFile = seen["which \(world.doc)"] ?? [:]
        #expect(whichFile["file"] as? String == world.doc && whichFile["type"] as? String == "text/markdown", "\(whichFile)")
        #expect((whichFile["default_origin"] as? [String: Any])?["level"] as? String == "directory-order", "\(whichFile)")
        #expect((seen["share --list text/plain"]?["targets"] as? [[String: Any]])?.first?["id"] as? String == "notes.desktop:share", "\(seen)")
    }

    @Test func errorsHaveOneShapeForOpenSharePickWhich() async throws {
        let world = try World()
        let f = world.f
        defer { f.stop() }
        await PickTests.untilLive(f, try PickTests.provider(f, ["cancel"], id: "canceller"))
        let missing = f.root.appendingPathComponent("missing.md").path
        let noHandler = ContractError.noHandler.description
        // open: the object of the argument that failed, `"opened":false`, the error in it.
        let open = try await Self.expectError(try await world.cli(["open", "--json", "nothing://x"]), 3, dbusError: noHandler, "open URL")
        #expect(open["url"] as? String == "nothing://x" && open["opened"] as? Bool == false, "\(open)")
        let openFile = try await Self.expectError(try await world.cli(["open", "--json", missing]), 2, "open missing file")
        #expect(openFile["file"] as? String == missing && openFile["opened"] as? Bool == false && (openFile["error"] as? [String: Any])?["dbus_error"] is NSNull,
                "\(openFile)")
        // One failed argument among others: each has its object, the failed one its error.
        let mixed = try await world.cli(["open", "--json", "todolist://ok", missing])
        #expect(try await Self.strict(mixed.stdout, "mixed").map { $0["opened"] as? Bool } == [true, false], "\(mixed.stdout)")
        try await Self.expectError(mixed, 2, "open, one of two fails")
        // share: a file that does not exist, a target that does not exist.
        try await Self.expectError(try await world.cli(["share", "--json", missing, "--to", "notes.desktop:share"]), 2, "share missing file")
        try await Self.expectError(try await world.cli(["share", "--json", "--url", "https://example.org/", "--to", "other.desktop:x"]), 3,
                                   dbusError: ContractError.noTarget.description, "share to no target")
        // pick: the provider cancels; a provider that is not installed.
        let cancelled = try await Self.expectError(try await world.cli(["pick", "--json", "--provider", "canceller.desktop"]), 5, "pick cancelled")
        #expect(cancelled["status"] as? String == "cancelled", "\(cancelled)")
        try await Self.expectError(try await world.cli(["pick", "--json", "--provider", "nope.desktop"]), 2, "pick no such provider")
        // which: no handler (the answer, with its error), not a handler, a missing file.
        let none = try await Self.expectError(try await world.cli(["which", "--json", "nothing://x"]), 3, "which no handler")
        #expect(none["handlers"] as? [String] == [] && none["scheme"] as? String == "nothing", "\(none)")
        try await Self.expectError(try await world.cli(["which", "--json", "--handler", "zzz.desktop", "todolist://x"]), 2, "which not a handler")
        try await Self.expectError(try await world.cli(["which", "--json", missing]), 2, "which missing file")
        // And the rest: a usage error, no service at all.
        try await Self.expectError(try await world.cli(["which", "--json", "--bogus", "todolist://x"]), 1, "usage")
        try await Self.expectError(try await world.cli(["open", "--json", "--address", "unix:path=/nonexistent", "todolist://x"]), 3, "no bus")
    }
}
