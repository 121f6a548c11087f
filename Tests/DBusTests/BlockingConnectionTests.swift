import Foundation
import Testing
import DBus
import DBusTestSupport

/// Runs blocking code on a thread of its own, so it does not hold one of the few threads the
/// exported test service's handlers need.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        Thread { cont.resume(with: Result { try body() }) }.start()
    }
}

/// ``BlockingConnection``, the command line's connection: calls, errors, timeouts and signals
/// against a service exported by the layer on a private bus.
@Suite struct BlockingConnectionTests {
    @Test func callsErrorsAndTimeouts() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let address = service.bus.address
        try await offPool {
            let c = try BlockingConnection(address: address)
            #expect(c.uniqueName.hasPrefix(":"))
            let reply = try c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                                   member: "Concat", [.string("a b"), .string("\u{1F600}")])
            #expect(reply == [.string("a b\u{1F600}")])
            let echoed = try c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                                    member: "Echo", [.variant(.vardict(["k": .array(element: .string, [])]))])
            #expect(echoed == [.variant(.vardict(["k": .array(element: .string, [])]))], "empty containers keep their type")
            #expect(throws: DBusError("org.example.Test.Error.Custom", "nope")) {
                try c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Fail", [.string("nope")])
            }
            let unknown = #expect(throws: DBusError.self) {
                try c.call(destination: "org.example.Nobody", path: "/", interface: nil, member: "X")
            }
            #expect(unknown?.name == .serviceUnknown)
            let slow = #expect(throws: DBusError.self) {
                try c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                           member: "Block", [.string("timeout")], timeout: .milliseconds(100))
            }
            #expect(slow?.name == .noReply)
            #expect(throws: DBusError.self) { try BlockingConnection(address: "unix:path=/nonexistent/bus") }
            #expect(throws: DBusError.self) { try BlockingConnection(address: "") }
        }
    }

    @Test func signalsAfterAddMatch() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let bus = service.bus
        try await offPool {
            let c = try BlockingConnection(address: bus.address)
            try c.addMatch(MatchRule(interface: TestService.interface, member: "Tick"))
            while let m = try c.nextSignal(timeout: .milliseconds(100)) {
                #expect(m.interface?.rawValue == "org.freedesktop.DBus", "only the bus's own NameAcquired comes before any Tick")
            }
            _ = try c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Emit", [.uint32(3)])
            var ticks: [DBusValue] = []
            while ticks.count < 3, let m = try c.nextSignal(timeout: .seconds(60)) {
                if m.member?.rawValue == "Tick" { ticks += m.body }
            }
            #expect(ticks == [.uint32(0), .uint32(1), .uint32(2)])
            bus.stop()
            #expect(throws: DBusError.self) { while try c.nextSignal(timeout: .seconds(60)) != nil {} }
        }
    }
}
