import Foundation
import Testing
@testable import SchemeBridgeCore

/// `man/schemebridge-config.5` is the one reference of the config file: every key the service
/// reads is there, and the defaults it shows are the service's.
@Suite struct ConfigReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The page's `Key=default` entries (`.BR Key= default`), by group.
    static func documentedDefaults() throws -> [(group: String, key: String, value: String)] {
        let page = try String(contentsOf: root.appendingPathComponent("man/schemebridge-config.5"), encoding: .utf8)
        var group = ""
        var found: [(String, String, String)] = []
        for line in page.split(separator: "\n") {
            if line.hasPrefix(".SH ["), line.hasSuffix("]") { group = String(line.dropFirst(5).dropLast()) }
            else if line.hasPrefix(".SH ") { group = "" }
            let words = line.split(separator: " ")
            if !group.isEmpty, words.count == 3, words[0] == ".BR", words[1].hasSuffix("="),
               words[1].dropLast().allSatisfy({ $0.isASCII && $0.isLetter }) {
                found.append((group, String(words[1].dropLast()), String(words[2])))
            }
        }
        return found
    }

    @Test func documentedDefaultsAreTheServicesAndAreReadWithoutWarnings() throws {
        let documented = try Self.documentedDefaults()
        #expect(documented.count >= 25, "\(documented.count) keys with defaults found in the page")
        var text = ""
        for group in Set(documented.map(\.group)).sorted() {
            text += "[\(group)]\n" + documented.filter { $0.group == group }.map { "\($0.key)=\($0.value)\n" }.joined()
        }
        var warnings: [String] = []
        let parsed = try PolicyConfig.parse(text, path: "config", warnings: &warnings)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(parsed == PolicyConfig(), "a default in schemebridge-config.5 is not the service's:\n\(text)")
    }

    /// Every key literal the parsers compare against is named in the page as `Key=`.
    @Test func everyKeyTheServiceReadsIsDocumented() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("man/schemebridge-config.5"), encoding: .utf8)
        let groups: Set<String> = ["Policy", "LaunchImages", "Pasteboards", "Documents", "Chooser", "Routes", "Callbacks", "Devices", "AppLinks"]
        var keys: Set<String> = []
        for file in ["Policy/PolicyConfig.swift", "Choosing/ChooserSettings.swift", "AppLinks/AppLinkConfig.swift"] {
            let source = try String(contentsOf: Self.root.appendingPathComponent("Sources/SchemeBridgeCore/" + file), encoding: .utf8)
            let literal = try Regex(#""([A-Z][A-Za-z]+)""#)
            for match in source.matches(of: literal) {
                if let word = match.output[1].substring.map(String.init), !groups.contains(word) { keys.insert(word) }
            }
        }
        #expect(keys.count >= 26, "\(keys.sorted())")
        let undocumented = keys.filter { !page.contains("\($0)=") }
        #expect(undocumented.isEmpty, "not in man/schemebridge-config.5: \(undocumented.sorted())")
    }
}
