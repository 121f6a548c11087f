import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 27, item 4, routing you can see: `handlers` names the entries that declare the scheme
/// but are skipped, with why; `default SCHEME` mentions the routes and remembered choices that
/// open it with another application first.
@Suite struct RoutingVisibilityTests {
    static func cli(_ f: ServiceFixture, _ args: String...) async throws -> ProcessResult {
        try await Tools.run([try Built.executable("schemebridge")] + args,
                            environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
    }

    @Test func handlersNamesTheSkippedEntriesWithTheirReason() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/probe;")
        try f.entry("quoted.desktop", "Name=Quoted\nExec=\"\(f.bin.path)/unterminated %u\nMimeType=x-scheme-handler/probe;")
        try f.entry("tryexec.desktop", "Name=TryExec\nTryExec=\(f.bin.path)/not-installed\nExec=\(try f.recorder("t")) %u\nMimeType=x-scheme-handler/probe;")
        try f.entry("other.desktop", "Name=Other\nExec=\"\(f.bin.path)/unterminated %u\nMimeType=x-scheme-handler/elsewhere;")

        let plain = try await Self.cli(f, "handlers", "probe")
        #expect(plain.status == 0 && plain.stdout == "good.desktop\n", "\(plain.status) \(plain.stdout)\(plain.stderr)")
        let lines = plain.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(plain.stderr)")
        #expect(lines.first { $0.hasPrefix("schemebridge: skipped quoted.desktop (\(f.applications.path)/quoted.desktop): ") && $0.contains("quot") } != nil,
                "\(plain.stderr)")
        #expect(lines.contains("schemebridge: skipped tryexec.desktop (\(f.applications.path)/tryexec.desktop): TryExec program '\(f.bin.path)/not-installed' is not installed"),
                "\(plain.stderr)")

        let json = try await Self.cli(f, "handlers", "--json", "probe")
        #expect(json.stdout.hasPrefix("{\"scheme\":\"probe\",\"handlers\":[\"good.desktop\"],\"skipped\":[{\"desktop_id\":\"quoted.desktop\",\"path\":"),
                "\(json.stdout)")
        #expect(json.stdout.contains("{\"desktop_id\":\"tryexec.desktop\",\"path\":\"\(f.applications.path)/tryexec.desktop\",\"reason\":\"TryExec program"),
                "\(json.stdout)")

        // The same over D-Bus: (desktop id, file, reason); an entry for another scheme is not named.
        let reply = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                         "\(Contract.interface.rawValue).\(ContractMethod.skippedHandlersForScheme.rawValue)", "string:probe"])
        #expect(reply.status == 0 && reply.stdout.contains("\"tryexec.desktop\"") && reply.stdout.contains("\"quoted.desktop\"")
                && !reply.stdout.contains("other.desktop") && !reply.stdout.contains("good.desktop"), "\(reply.stdout)\(reply.stderr)")
        // DisplayNames: the Name of each installed application among the ids, nothing for the rest.
        let names = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                         "\(Contract.interface.rawValue).\(ContractMethod.displayNames.rawValue)", "array:string:good.desktop,nothing.desktop"])
        #expect(names.status == 0 && names.stdout.contains("\"good.desktop\"") && names.stdout.contains("\"Good\"") && !names.stdout.contains("nothing"),
                "\(names.stdout)\(names.stderr)")
        // A bad scheme is InvalidArgs-like, as for HandlersForScheme.
        let bad = try await Self.cli(f, "handlers", "no scheme")
        #expect(bad.status != 0, "\(bad.stdout)")
    }

    @Test func defaultMentionsTheRoutesAndChoicesThatOverrideIt() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let (one, two) = try await f.installTodoWithChoiceAndRoute()

        let plain = try await Self.cli(f, "default", "todo")
        #expect(plain.status == 0 && plain.stdout == "a.desktop\n", "\(plain.stdout)\(plain.stderr)")
        #expect(plain.stderr == """
            schemebridge: note: a [Routes] line opens it with c.desktop for callers matching '\(two)', before the default
            schemebridge: note: a remembered choice opens it with b.desktop for \(one), before the default

            """, "\(plain.stderr)")
        let json = try await Self.cli(f, "default", "--json", "todo")
        #expect(json.stdout == "{\"scheme\":\"todo\",\"default\":\"a.desktop\",\"overridden_by\":[{\"kind\":\"route\",\"from\":\"\(two)\",\"handler\":\"c.desktop\"},{\"kind\":\"choice\",\"from\":\"\(one)\",\"handler\":\"b.desktop\"}]}\n",
                "\(json.stdout)")
        // Nothing overrides another scheme's default: no note.
        try f.entry("solo.desktop", "Name=Solo\nExec=\(try f.recorder("solo")) %u\nMimeType=x-scheme-handler/solo;")
        #expect(await Tools.eventually { (try? await Self.cli(f, "default", "solo"))?.stdout == "solo.desktop\n" })
        let solo = try await Self.cli(f, "default", "solo")
        #expect(solo.stderr.isEmpty, "\(solo.stderr)")
    }
}
