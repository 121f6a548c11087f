import Testing
import DBus
import DBusTestSupport

/// What a program on the same bus can send at the layer: signals aimed at us, forged bus
/// signals, option dictionaries full of keys nobody reads, values by the million.
@Suite struct HostileMessageTests {
    @Test func aClientCannotForgeTheBussOwnSignals() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let victim = try await Connection.connect(address: bus.address)
        defer { victim.close() }
        let forger = try await Connection.connect(address: bus.address)
        defer { forger.close() }
        let owners = try await victim.signals(matching: MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
        // A forged NameOwnerChanged sent straight to the victim, then a real one (a new connection).
        try forger.emit(path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                        [.string(":1.999"), .string(":1.999"), .string("")], destination: BusName(victim.uniqueName))
        let newcomer = try await Connection.connect(address: bus.address)
        defer { newcomer.close() }
        var seen: [String] = []
        for await m in owners {
            guard case .string(let name)? = m.body.first else { continue }
            seen.append(name)
            if name == newcomer.uniqueName { break }
        }
        #expect(!seen.contains(":1.999"), "a forged bus signal was delivered: \(seen)")
    }

    @Test func unknownOptionKeysAreSkippedAndTooManyValuesRefused() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let service = try await Connection.connect(address: bus.address)
        defer { service.close() }
        let interface: InterfaceName = "org.example.Options"
        try service.export([Interface(interface, methods: [
            Method("Keys", inputs: [Argument("options", "a{sv}", keys: ["wanted"])], outputs: [Argument("keys", "as")],
                   handler: .inline { call in [.strings((call.arguments[0].stringDictionary ?? [:]).keys.sorted())] }),
            Method("Length", inputs: [Argument("text", "s", maxBytes: 8)], outputs: [Argument("bytes", "u")],
                   handler: .inline { call in [.uint32(UInt32(call.string(0).utf8.count))] }),
        ])], at: "/o")
        let client = try await Connection.connect(address: bus.address)
        defer { client.close() }
        let dest = try BusName(service.uniqueName)
        let options: DBusValue = .vardict(["wanted": .uint32(1), "junk": .bytes([UInt8](repeating: 1, count: 1 << 20)),
                                           "more": .array(element: .uint32, (0..<1000).map { .uint32($0) })])
        let keys = try await client.call(destination: dest, path: "/o", interface: interface, member: "Keys", [options])
        #expect(keys == [.strings(["wanted"])], "unknown keys never reach the handler")
        let cut = try await client.call(destination: dest, path: "/o", interface: interface, member: "Length", [.string("0123456789abcdef")])
        #expect(cut == [.uint32(9)], "a string over maxBytes arrives cut to maxBytes + 1 bytes")
        let fine = try await client.call(destination: dest, path: "/o", interface: interface, member: "Length", [.string("short")])
        #expect(fine == [.uint32(5)])
        do {
            _ = try await client.call(destination: dest, path: "/o", interface: interface, member: "Keys",
                                      [.vardict(["wanted": .array(element: .uint32, (0..<300_000).map { .uint32($0) })])])
            Issue.record("300,000 values were decoded")
        } catch {
            #expect(error.name == .invalidArgs && error.message.contains("file descriptor"), "\(error)")
        }
        #expect(try await client.call(destination: dest, path: "/o", interface: interface, member: "Keys", [.vardict([:])]) == [.strings([])],
                "the service still answers")
    }
}
