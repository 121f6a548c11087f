import Foundation
import Testing
import DBusTestSupport

/// The config files as people write them: the system-wide file under the user's, unknown groups and
/// keys warned by the service, `schemebridge config check` printing the same warnings, and the
/// documented examples working when copied.
@Suite struct ConfigCheckTests {
    static func check(_ f: ServiceFixture) async throws -> ProcessResult {
        try await Tools.run([try Built.executable("schemebridge"), "config", "check"], environment: f.environment)
    }

    static func writeSystemConfig(_ f: ServiceFixture, _ text: String) throws {
        let dir = f.root.appendingPathComponent("sysconfig/schemebridge")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try text.write(to: dir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    @Test func unknownGroupsKeysAndInlineCommentsAreWarnedByServiceAndCheck() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let user = f.configHome.appendingPathComponent("schemebridge/config").path
        let system = f.root.appendingPathComponent("sysconfig/schemebridge/config").path
        try Self.writeSystemConfig(f, "[policy]\nQueryPrivacy=true\n")
        try f.writeConfig("""
            [Policy]
            MaxLaunchRate=50   # per second
            LaunchBursts=10
            [Chooser]
            Timeout=60
            Timeout=90
            [Colors]
            Background=red
            """)
        let expected = [
            "\(system):1: unknown group [policy] ignored (did you mean [Policy]?)",
            "\(user):2: the value of MaxLaunchRate contains ' #': a comment must be on a line of its own, after a value it is part of the value",
            "\(user):3: unknown key 'LaunchBursts' ignored",
            "\(user): MaxLaunchRate=50   # per second is not a number from 0.0 to 1000000.0; ignored",
            "\(user):7: unknown group [Colors] ignored",
        ]
        let r = try await Self.check(f)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        for line in expected { #expect(lines.contains(line), "missing \(line) in:\n\(r.stdout)") }
        #expect(lines.contains { $0.hasPrefix("\(user):6:") && $0.contains("Timeout") }, "the repeated key: \(r.stdout)")
        #expect(lines.last == "6 warnings: \(user), \(system)", "\(r.stdout)")

        // The service logs the same warnings when it starts (here by bus activation).
        let opened = try await f.dbusSend("OpenURL", "string:todolist://x")
        #expect(opened.stdout.contains("boolean true"), "\(opened.stdout)\(opened.stderr)")
        #expect(await Tools.eventually { expected.allSatisfy { f.serviceLog.contains($0) } }, "\(f.serviceLog)")

        // A clean file: exit 0.
        try FileManager.default.removeItem(atPath: system)
        try f.writeConfig("[Policy]\n# per second\nMaxLaunchRate=50\n")
        let clean = try await Self.check(f)
        #expect(clean.status == 0 && clean.stdout == "no warnings: \(user)\n", "\(clean.stdout)\(clean.stderr)")
        try FileManager.default.removeItem(atPath: user)
        let none = try await Self.check(f)
        #expect(none.status == 0 && none.stdout == "no warnings: no config file (looked for \(user), \(system))\n", "\(none.stdout)\(none.stderr)")
    }

    @Test func systemWideConfigAppliesUnderTheUsers() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("secret.desktop", "Name=Secret\nExec=/bin/true %u\nMimeType=x-scheme-handler/secretbank;", system: true)
        try f.entry("a.desktop", "Name=A\nExec=/bin/true %u\nMimeType=x-scheme-handler/todo;")
        try f.entry("b.desktop", "Name=B\nExec=/bin/true %u\nMimeType=x-scheme-handler/todo;")
        try Self.writeSystemConfig(f, "[Policy]\nQueryPrivacy=true\n[Routes]\ntodo from org.example.*=a.desktop\n")
        // The admin's QueryPrivacy applies: dbus-send declares no scheme, so learns nothing.
        let hidden = try await f.dbusSend("CanOpenURL", "string:secretbank:x")
        #expect(hidden.stdout.contains("boolean false"), "\(hidden.stdout)\(hidden.stderr)")
        // The user's file wins key by key, and its routes come first.
        try f.writeConfig("[Policy]\nQueryPrivacy=false\n[Routes]\ntodo from org.example.Mail=b.desktop\n")
        #expect(await Tools.eventually {
            (try? await f.dbusSend("CanOpenURL", "string:secretbank:x"))?.stdout.contains("boolean true") ?? false
        })
        let routes = try await f.dbusSend("Routes")
        let mail = try #require(routes.stdout.range(of: "org.example.Mail"), "\(routes.stdout)")
        let star = try #require(routes.stdout.range(of: "org.example.*"), "\(routes.stdout)")
        #expect(mail.lowerBound < star.lowerBound, "\(routes.stdout)")
        let r = try await Self.check(f)
        #expect(r.status == 0, "\(r.stdout)")
    }

    /// Every config example of the README and docs/*.md, the man page and the PolicyConfig doc comment, copied as
    /// it is into a config file, is clean for `config check`.
    @Test func documentedExamplesWorkWhenCopied() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let root = Built.packageRoot
        func blocks(_ lines: [String], from start: (String) -> Bool, to end: (String) -> Bool) -> [String] {
            var out: [String] = [], current: [String]? = nil
            for line in lines {
                if current == nil { if start(line) { current = [] }; continue }
                if end(line) { out.append(current!.joined(separator: "\n") + "\n"); current = nil } else { current!.append(line) }
            }
            return out
        }
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") }
        let markdown = try (["README.md"] + docs.sorted().map { "docs/" + $0 }).flatMap {
            try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8).components(separatedBy: "\n")
        }
        let man = try String(contentsOf: root.appendingPathComponent("man/schemebridge-config.5"), encoding: .utf8).components(separatedBy: "\n")
        let swift = try String(contentsOf: root.appendingPathComponent("Sources/SchemeBridgeCore/Policy/PolicyConfig.swift"), encoding: .utf8)
            .components(separatedBy: "\n").filter { $0.hasPrefix("///") }.map { $0.hasPrefix("/// ") ? String($0.dropFirst(4)) : String($0.dropFirst(3)) }
        let configGroups = ["[Policy]", "[LaunchImages]", "[Pasteboards]", "[Documents]", "[Chooser]", "[Routes]", "[Privacy]", "[Callbacks]"]
        func isConfig(_ block: String) -> Bool {
            let first = block.split(separator: "\n").first { $0.hasPrefix("[") }.map(String.init) ?? ""
            return configGroups.contains(first)
        }
        let examples = [
            ("README.md and docs/*.md", blocks(markdown, from: { $0 == "```ini" }, to: { $0 == "```" }).filter(isConfig)),
            ("schemebridge-config.5", blocks(man, from: { $0 == ".EX" }, to: { $0 == ".EE" })
                .map { $0.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\(em", with: "—") }.filter(isConfig)),
            ("PolicyConfig.swift", blocks(swift, from: { $0 == "```ini" }, to: { $0 == "```" }).filter(isConfig)),
        ]
        for (source, found) in examples {
            #expect(!found.isEmpty, "no config example found in \(source)")
            for example in found {
                try f.writeConfig(example)
                let r = try await Self.check(f)
                #expect(r.status == 0 && r.stdout.hasPrefix("no warnings"), "\(source) example:\n\(example)\ngives:\n\(r.stdout)\(r.stderr)")
            }
        }
        #expect(examples.map(\.1.count).reduce(0, +) >= 5)
    }
}
