import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The man pages and `--version`, as a packager and a user read them: `man/schemebridge.1` is
/// generated from the CLI's help (`make man`) and committed, so it must still describe the CLI
/// as built; `--version` names the release and the contract version from the contract module.
@Suite struct ManualTests {
    static func page(_ name: String) throws -> String {
        try String(contentsOf: Built.packageRoot.appendingPathComponent("man/" + name), encoding: .utf8)
    }

    @Test func versionNamesTheReleaseAndTheContractVersion() async throws {
        let cli = try await Tools.run([try Built.executable("schemebridge"), "--version"])
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(cli.stdout == "schemebridge \(Release.version)\nD-Bus contract version \(Contract.version) (\(Contract.busName))\n",
                "\(cli.stdout)")
        #expect(Release.version.split(separator: ".").count == 3, "MAJOR.MINOR.PATCH: \(Release.version)")
        // The changelog has a section for the release.
        let changelog = try String(contentsOf: Built.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("\n## \(Release.version) "), "CHANGELOG.md has no section for \(Release.version)")
    }

    /// Every subcommand, its abstract and every long option of `schemebridge` (from
    /// `--experimental-dump-help`, what the manual generator reads) is in the committed page.
    @Test func schemebridgeManualDescribesTheBuiltCommandLine() async throws {
        let dump = try await Tools.run([try Built.executable("schemebridge"), "--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let manual = try Self.page("schemebridge.1")
        var missing: [String] = []
        func walk(_ command: [String: Any], path: String) {
            let name = command["commandName"] as? String ?? "?"
            let here = path.isEmpty ? name : path + " " + name
            if !path.isEmpty, !manual.contains(".It Em \(name)\n") { missing.append("subcommand \(here)") }
            if let abstract = command["abstract"] as? String, !manual.contains(abstract) { missing.append("abstract of \(here): \(abstract)") }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                for n in argument["names"] as? [[String: String]] ?? [] where n["kind"] == "long" {
                    if !manual.contains("Fl -\(n["name"] ?? "")") { missing.append("option --\(n["name"] ?? "") of \(here)") }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] where (sub["shouldDisplay"] as? Bool) != false && sub["commandName"] as? String != "help" {
                walk(sub, path: here)
            }
        }
        walk(try #require(root["command"] as? [String: Any]), path: "")
        #expect(missing.isEmpty, "man/schemebridge.1 is out of date (run `make man`): \(missing)")
    }

    /// Every page has examples; `schemebridge(1)`'s EXIT STATUS lists exactly the statuses the CLI
    /// returns (`ExitStatus`), and each example runs a subcommand that exists with options it takes.
    @Test func pagesHaveExamplesAndTheExitStatusesOfTheCLI() async throws {
        let cli = try Self.page("schemebridge.1")
        #expect(cli.contains(".Sh EXAMPLES\n") && !cli.contains(".Ex -std"), "schemebridge.1")
        #expect(try Self.page("schemebridged.8").contains(".SH EXAMPLES\n") && Self.page("schemebridge-config.5").contains(".SH EXAMPLES\n"))
        // The statuses the CLI has (Sources/SchemeBridgeCLIKit/ExitStatus.swift) and the page's list.
        let source = try String(contentsOf: Built.packageRoot.appendingPathComponent("Sources/SchemeBridgeCLIKit/ExitStatus.swift"), encoding: .utf8)
        let statuses = source.split(separator: "\n").compactMap { line -> Int? in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("case "), let eq = t.firstIndex(of: "=") else { return nil }
            return Int(t[t.index(after: eq)...].trimmingCharacters(in: .whitespaces))
        }
        let section = cli.components(separatedBy: ".Sh \"EXIT STATUS\"\n").dropFirst().first?.components(separatedBy: "\n.Sh ").first ?? ""
        let listed = section.split(separator: "\n").compactMap { $0.hasPrefix(".It ") ? Int($0.dropFirst(4)) : nil }
        #expect(!statuses.isEmpty && listed == statuses, "EXIT STATUS lists \(listed); the CLI has \(statuses)")
        // Each example's subcommand and long options are the CLI's.
        let dump = try await Tools.run([try Built.executable("schemebridge"), "--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var options: [String: Set<String>] = [:]
        for sub in (root["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? [] {
            let names = (sub["arguments"] as? [[String: Any]] ?? []).flatMap { ($0["names"] as? [[String: String]] ?? []).compactMap { $0["kind"] == "long" ? $0["name"] : nil } }
            options[sub["commandName"] as? String ?? ""] = Set(names)
        }
        let examples = cli.components(separatedBy: ".Sh EXAMPLES\n").dropFirst().first?.components(separatedBy: "\n.Sh ").first ?? ""
        let lines = examples.split(separator: "\n").filter { $0.hasPrefix("schemebridge ") }
        #expect(lines.count >= 8, "\(lines)")
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            let known = try #require(options[words[1]], "example of no subcommand: \(line)")
            for word in words where word.hasPrefix("--") {
                #expect(known.contains(String(word.dropFirst(2))), "\(words[1]) has no \(word): \(line)")
            }
        }
    }

    /// The hand-written pages name the service's options and the config file's groups.
    @Test func handWrittenPagesNameWhatTheProgramsRead() async throws {
        let daemon = try Self.page("schemebridged.8")
        let help = try await Tools.run([try Built.executable("schemebridged"), "--help"])
        for option in help.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "[" || $0 == "]" || $0 == "," })
        where option.hasPrefix("--") {
            #expect(daemon.contains("\\-\\-" + option.dropFirst(2).replacingOccurrences(of: "-", with: "\\-")),
                    "schemebridged.8 does not describe \(option)")
        }
        let config = try Self.page("schemebridge-config.5")
        for group in ["Policy", "LaunchImages", "Pasteboards", "Documents", "Chooser", "Routes", "Callbacks"] {
            #expect(config.contains(".SH [\(group)]"), "schemebridge-config.5 has no [\(group)] section")
        }
    }
}
