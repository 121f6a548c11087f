import DBus
import DBusTestSupport
import Synchronization
import Testing

/// A signal marshalled once and sent as addressed copies (``EncodedSignal``): each copy reaches
/// its receiver from its own path with the template's interface, member and body, and only the
/// receiver it names when it names one.
@Suite struct EncodedSignalTests {
    @Test func eachCopyGoesFromItsOwnPathToItsOwnReceiverWithTheSameBody() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let sender = try await Connection.connect(address: bus.address)
        defer { sender.close() }
        let (first, second) = (try await Connection.connect(address: bus.address), try await Connection.connect(address: bus.address))
        defer { first.close(); second.close() }
        let rule = MatchRule(interface: "org.example.Requests", member: "Response")
        let (toFirst, toSecond) = (try await first.signals(matching: rule), try await second.signals(matching: rule))
        let body: [DBusValue] = [.uint32(0), .vardict(["device": .string("Pixel 7"), "delivery": .string("handed-to-engine")])]
        let signal = try EncodedSignal(interface: "org.example.Requests", member: "Response") { writer throws(DBusError) in
            try writer.append(0 as UInt32)
            try writer.appendVardict(["device": .string("Pixel 7"), "delivery": .string("handed-to-engine")])
        }
        try sender.emit(signal, path: "/org/example/request/1", destination: try BusName(first.uniqueName))
        try sender.emit(signal, path: "/org/example/request/2", destination: try BusName(second.uniqueName))
        // Broadcast (no destination): both receive it.
        try sender.emit(signal, path: "/org/example/request/3")
        // Each receiver's signals as they come (the streams read by tasks; the waits have a ceiling).
        let seen = Seen()
        let readers = [(1, toFirst), (2, toSecond)].map { receiver, stream in
            Task { for await s in stream { seen.withLock { $0[receiver, default: []].append(s) } } }
        }
        defer { readers.forEach { $0.cancel() } }
        #expect(await Tools.eventually { seen.withLock { $0[1]?.count == 2 && $0[2]?.count == 2 } }, "\(seen.withLock { $0 })")
        let (byFirst, bySecond) = seen.withLock { ($0[1] ?? [], $0[2] ?? []) }
        #expect(byFirst.map { $0.path?.rawValue } == ["/org/example/request/1", "/org/example/request/3"])
        #expect(bySecond.map { $0.path?.rawValue } == ["/org/example/request/2", "/org/example/request/3"])
        for s in byFirst + bySecond { #expect(s.body == body, "\(s)") }
        #expect(byFirst[0].destination == first.uniqueName && bySecond[0].destination == second.uniqueName)
        #expect(byFirst[1].destination == nil && bySecond[1].destination == nil, "the broadcast copy names no receiver")
    }
}

/// Signals seen, by receiver, shared with the tasks that read them.
private final class Seen: Sendable {
    private let seen = Mutex<[Int: [Message]]>([:])
    func withLock<R>(_ body: (inout [Int: [Message]]) -> R) -> R { seen.withLock { body(&$0) } }
}
