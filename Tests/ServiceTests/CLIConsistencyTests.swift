import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// One style across the command line: every `--json` output an object with snake_case keys, a
/// failure under `--json` an object too, a suggestion for a mistyped subcommand, and completion
/// scripts that complete file names for `open`, `type` and `which`.
@Suite struct CLIConsistencyTests {
    static func object(_ line: Substring) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// Every key in `value`, at any depth.
    static func keys(_ value: Any) -> [String] {
        if let o = value as? [String: Any] { return o.keys + o.values.flatMap(keys) }
        if let a = value as? [Any] { return a.flatMap(keys) }
        return []
    }

    @Test func everyJSONOutputIsAnObjectWithSnakeCaseKeys() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=\(try f.recorder("a")) %u\nMimeType=x-scheme-handler/todolist;text/markdown;")
        let doc = f.root.appendingPathComponent("notes.md")
        try "# notes\n".write(to: doc, atomically: true, encoding: .utf8)
        let commands: [[String]] = [["schemes"], ["list"], ["handlers", "todolist"], ["default", "todolist"], ["can-open", "todolist://x"],
                                    ["which", "todolist://x"], ["type", doc.path], ["choices"], ["integrate", "status"],
                                    ["open", "todolist://j"], ["open", doc.path]]
        for command in commands {
            let r = try await Tools.run([try Built.executable("schemebridge")] + command + ["--json"],
                                        environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            let lines = r.stdout.split(separator: "\n")
            #expect(!lines.isEmpty, "\(command): no output")
            for line in lines {
                let o = try #require(Self.object(line), "\(command): not an object: \(line)")
                let bad = Self.keys(o).filter { $0.contains { !($0.isLowercase || $0.isNumber || $0 == "_") } }
                #expect(bad.isEmpty, "\(command): keys not snake_case: \(bad) in \(line)")
            }
        }
        let schemes = try await CLITests.cli(f, "schemes", "--json")
        #expect(schemes.stdout == "{\"schemes\":[\"todolist\"]}\n", "\(schemes.stdout)")
        let opened = try await CLITests.cli(f, "open", "--json", doc.path)
        #expect(opened.stdout.contains("\"content_type\":\"text/markdown\"") && opened.stdout.contains("\"launch_image\":"), "\(opened.stdout)")
    }

    @Test func failuresUnderJSONAreObjects() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        for (args, status, reason) in [(["type", f.root.path + "/missing"], 2, "not_found"), (["default", "todolist", "nope.desktop"], 2, "not_found"),
                                       (["schemes", "--bogus"], 1, "usage"), (["opne", "todolist://x"], 1, "usage"),
                                       (["schemes", "--address", "unix:path=/nonexistent"], 3, "no_handler")] {
            let r = try await Tools.run([try Built.executable("schemebridge")] + args + ["--json"], environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
            #expect(r.status == Int32(status), "\(args): \(r.status) \(r.stderr)")
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == 1, "\(args): \(r.stdout)")
            let o = try #require(lines.first.flatMap(Self.object), "\(args): \(r.stdout)")
            let error = o["error"] as? [String: Any] ?? [:]
            #expect(error["reason"] as? String == reason && error["exit_status"] as? Int == status
                    && !((error["message"] as? String) ?? "").isEmpty, "\(args): \(r.stdout)")
        }
        // A command whose answer is the failure prints its answer object with the error in it, and
        // no second one: open one a URL, failed ones included; handlers an empty list.
        let handlers = try await CLITests.cli(f, "handlers", "--json", "nothing")
        #expect(handlers.status == 3 && handlers.stdout == "{\"scheme\":\"nothing\",\"handlers\":[],\"error\":{\"exit_status\":3,\"reason\":\"no_handler\","
                + "\"dbus_error\":null,\"message\":\"no application handles 'nothing'\"}}\n", "\(handlers.stdout)")
        let open = try await CLITests.cli(f, "open", "--json", "nothing://x")
        #expect(open.status == 3 && open.stdout.split(separator: "\n").count == 1 && open.stdout.contains("\"opened\":false")
                && open.stdout.contains("\"dbus_error\":\"\(ContractError.noHandler)\""), "\(open.stdout)")
        // Without --json, stdout stays empty.
        let plain = try await CLITests.cli(f, "handlers", "nothing")
        #expect(plain.status == 3 && plain.stdout.isEmpty)
    }

    @Test func aMistypedSubcommandGetsASuggestion() async throws {
        let exe = try Built.executable("schemebridge")
        let typo = try await Tools.run([exe, "opne", "todolist://x"])
        #expect(typo.status == 1 && typo.stderr == "schemebridge: 'opne' is not a subcommand; did you mean 'open'? (schemebridge --help lists them)\n", "\(typo.stderr)")
        let swapped = try await Tools.run([exe, "hnadlers", "todolist"])
        #expect(swapped.stderr.contains("did you mean 'handlers'?"), "\(swapped.stderr)")
        let url = try await Tools.run([exe, "todolist://x"])
        #expect(url.status == 1 && url.stderr.contains("schemebridge open 'todolist://x'"), "\(url.stderr)")
        let nothing = try await Tools.run([exe, "frobnicate"])
        #expect(nothing.status == 1 && nothing.stderr.contains("they are: open, "), "\(nothing.stderr)")
    }

    @Test func completionScriptsCompleteFileNamesForOpenTypeAndWhich() async throws {
        let exe = try Built.executable("schemebridge")
        let bash = try await Tools.run([exe, "--generate-completion-script", "bash"]).stdout
        for sub in ["open", "type", "which"] {
            let body = bash.components(separatedBy: "_schemebridge_\(sub)() {").dropFirst().first?.components(separatedBy: "\n}\n").first ?? ""
            #expect(body.contains("__schemebridge_add_completions -f"), "bash: \(sub) does not complete files:\n\(body)")
        }
        let zsh = try await Tools.run([exe, "--generate-completion-script", "zsh"]).stdout
        #expect(zsh.contains("'*:url-or-file:_files'") && zsh.contains("'*:file:_files'"), "zsh")
        let fish = try await Tools.run([exe, "--generate-completion-script", "fish"]).stdout
        for sub in ["open", "type", "which"] {
            #expect(fish.split(separator: "\n").contains { $0.contains("\"schemebridge \(sub)\"") && $0.hasSuffix(" -F") }, "fish: \(sub)")
        }
    }

    /// What bash completes for `line` (the cursor at its end), with the real completion script
    /// and the real program, against the fixture's service (`Clients/CLIConsistency/bash-completes.sh`).
    static func bashCompletes(_ f: ServiceFixture, _ line: String) async throws -> [String] {
        let exe = try Built.executable("schemebridge")
        let r = try await Tools.run(["/bin/bash", Clients.files.file("CLIConsistency/bash-completes.sh")],
                                    environment: ["EXE": exe, "LINE": line, "DBUS_SESSION_BUS_ADDRESS": f.bus.address])
        return r.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test func bashCompletesSchemesDesktopIDsAndFiles() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;x-scheme-handler/tasks;")
        try f.entry("org.example.Other.desktop", "Name=Other\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("org.example.Notes.desktop", "Name=Notes\nExec=/bin/true %u\nMimeType=x-scheme-handler/notes;")
        #expect(try await Self.bashCompletes(f, "schemebridge handlers to") == ["todolist"])
        #expect(try await Self.bashCompletes(f, "schemebridge default t") == ["tasks", "todolist"])
        #expect(try await Self.bashCompletes(f, "schemebridge default todolist ") == ["org.example.Other.desktop", "org.example.Todo.desktop"])
        #expect(try await Self.bashCompletes(f, "schemebridge open --handler org.example.N") == ["org.example.Notes.desktop"])
        let dir = f.root.appendingPathComponent("docs")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try "x".write(to: dir.appendingPathComponent("report.pdf"), atomically: true, encoding: .utf8)
        #expect(try await Self.bashCompletes(f, "schemebridge type \(dir.path)/rep") == ["\(dir.path)/report.pdf"])
        #expect(try await Self.bashCompletes(f, "schemebridge open \(dir.path)/rep") == ["\(dir.path)/report.pdf"])
    }
}
