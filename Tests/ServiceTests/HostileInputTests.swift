import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Thousands of generated strings to every method through python3-dbus: every reply is a
/// value or a documented error, the service stays up, its memory stays bounded.
@Suite struct HostileInputTests {
    @Test func generatedStringsToEveryMethod() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        let environment = Clients.serviceNames.merging(["SB_ERRORS": ContractError.allCases.map(\.description).joined(separator: " "),
                                                        "SB_VERSION": String(Contract.version)]) { a, _ in a }
        let script = Clients.command("HostileInput/generated-strings", [f.bus.address, "1500"])
        let client = try await Connection.connect(address: f.bus.address)
        defer { client.close() }
        _ = try await client.call(destination: BusName(ServiceFixture.name), path: ObjectPath(ServiceFixture.path),
                                  interface: InterfaceName(ServiceFixture.interface), member: "CanOpenURL", [.string("todolist:x")])
        let pidReply = try await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                             member: "GetConnectionUnixProcessID", [.string(ServiceFixture.name)])
        guard case .uint32(let pid)? = pidReply.first else { Issue.record("no pid"); return }
        func rssKB() -> Int {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        let first = try await Tools.run(script, environment: environment, timeout: .seconds(120))
        #expect(first.status == 0, "\(first.stderr)")
        let rssAfterFirst = rssKB()
        let second = try await Tools.run(script, environment: environment, timeout: .seconds(120))
        #expect(second.status == 0, "\(second.stderr)")
        let rssAfterSecond = rssKB()
        // The first round grows the heap arenas the service's threads use (after the heap was
        // trimmed at start); from the second on, memory must stay flat.
        let third = try await Tools.run(script, environment: environment, timeout: .seconds(120))
        #expect(third.status == 0, "\(third.stderr)")
        let rssAfterThird = rssKB()
        for r in [first, second, third] {
            let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            #expect((json?["bad"] as? [Any])?.isEmpty == true, "undocumented errors: \(json?["bad"] ?? "none")")
            let counts = json?["counts"] as? [String: Any]
            #expect((counts?["ok"] as? Int ?? 0) > 0, "\(r.stdout)")
        }
        #expect(kill(Int32(pid), 0) == 0, "the service is still running")
        #expect(rssAfterThird - rssAfterSecond < 4096, "RSS \(rssAfterFirst) KB → \(rssAfterSecond) KB → \(rssAfterThird) KB")
        // The file the fuzzing tried to corrupt is still a valid list.
        let list = (try? String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)) ?? ""
        #expect(list.isEmpty || list.contains("[Default Applications]"), "\(list.prefix(500))")
    }
}
