import Testing
import DBus
import DBusTestSupport

/// A call is routed by its names once they led to a declared method (``MethodRoute``): the next
/// calls with the same names reach the object exported at the path now, not the one they reached
/// before — an object exported again, or removed, takes its routes with it.
@Suite struct MethodRouteTests {
    func answering(_ text: String) -> Interface {
        Interface("org.example.Route", methods: [
            Method("Which", outputs: [Argument("which", .string)], handler: .inline { _ in [.string(text)] }),
        ])
    }

    @Test func aCallReachesTheObjectExportedNow() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let service = try await Connection.connect(address: bus.address)
        defer { service.close() }
        let client = try await Connection.connect(address: bus.address)
        defer { client.close() }
        let name = try BusName(service.uniqueName)
        func which(_ path: ObjectPath = "/route") async throws -> [DBusValue] {
            try await client.call(destination: name, path: path, interface: "org.example.Route", member: "Which")
        }
        try service.export([answering("first")], at: "/route")
        try service.export([answering("beside")], at: "/route/beside")
        #expect(try await which() == [.string("first")])
        #expect(try await which() == [.string("first")])
        #expect(try await which("/route/beside") == [.string("beside")])
        try service.export([answering("second")], at: "/route")
        #expect(try await which() == [.string("second")])
        #expect(try await which("/route/beside") == [.string("beside")])
        service.unexport("/route")
        do {
            _ = try await which()
            Issue.record("a call reached an object no longer exported")
        } catch let e as DBusError {
            #expect(e.name == .unknownObject, "\(e)")
        }
        #expect(try await which("/route/beside") == [.string("beside")])
    }
}
