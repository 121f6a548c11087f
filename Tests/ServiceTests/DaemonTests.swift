import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// schemebridged itself, started the ways users start it, against a private bus.
@Suite struct DaemonTests {
    static let name = Contract.busName.rawValue
    static let path = Contract.objectPath.rawValue

    /// A private bus whose service dir holds the shipped .service file, pointed at the built daemon.
    func activatableBus() throws -> PrivateBus {
        let bus = try PrivateBus(ownHome: true)
        let template = try String(contentsOf: Built.packageRoot.appendingPathComponent("dbus/" + Contract.serviceFileName + ".in"), encoding: .utf8)
        let text = template.replacingOccurrences(of: "@bindir@", with: Built.programs.path)
        try text.write(to: bus.serviceDirectory.appendingPathComponent("\(Self.name).service"), atomically: true, encoding: .utf8)
        return bus
    }

    @Test func busActivationFromTheShippedServiceFile() async throws {
        let bus = try activatableBus()
        defer { bus.stop() }
        // Nothing runs yet: the first dbus-send starts the daemon through the bus.
        let ping = try await Tools.run(["dbus-send", "--bus=\(bus.address)", "--print-reply", "--dest=\(Self.name)", Self.path, "org.freedesktop.DBus.Peer.Ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
        let version = try await Tools.run(["dbus-send", "--bus=\(bus.address)", "--print-reply", "--dest=\(Self.name)", Self.path,
                                           "org.freedesktop.DBus.Properties.Get", "string:\(Self.name)", "string:Version"])
        #expect(version.stdout.contains("uint32 \(Contract.version)"), "\(version.stdout)\(version.stderr)")
        let intro = try await Tools.run(["gdbus", "introspect", "--address", bus.address, "--dest", Self.name, "--object-path", Self.path])
        #expect(intro.stdout.contains("interface \(Self.name) {"), "\(intro.stdout)")
        let parent = try await Tools.run(["gdbus", "introspect", "--address", bus.address, "--dest", Self.name, "--object-path", String(Self.path[..<Self.path.lastIndex(of: "/")!])])
        #expect(parent.stdout.contains("node \(Self.path.split(separator: "/").last!)"), "\(parent.stdout)")
    }

    @Test func sigtermStopsCleanlyAndReleasesTheName() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = bus.directory.appendingPathComponent("daemon.log")
        let daemon = try Tools.spawn([try Built.executable("schemebridged"), "--address", bus.address], environment: bus.userEnvironment, stderr: log)
        let client = try await Connection.connect(address: bus.address)
        defer { client.close() }
        let owned = await Tools.eventually { await hasOwner(client) }
        #expect(owned)
        // A second instance refuses to start, saying why.
        let second = try await Tools.run([try Built.executable("schemebridged"), "--address", bus.address], environment: bus.userEnvironment)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already owns \(Self.name)"), "\(second.stderr)")

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        #expect(await hasOwner(client) == false)
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("shutting down"), "\(text)")
    }

    @Test func lostBusEndsTheDaemon() async throws {
        let bus = try PrivateBus()
        let daemon = try Tools.spawn([try Built.executable("schemebridged"), "--address", bus.address], environment: bus.userEnvironment)
        let client = try await Connection.connect(address: bus.address)
        #expect(await Tools.eventually { await hasOwner(client) })
        bus.stop()
        #expect(await daemon.wait() == 0)
    }

    @Test func noBusIsAClearError() async throws {
        let r = try await Tools.run([try Built.executable("schemebridged")], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no session bus"), "\(r.stderr)")
    }

    func hasOwner(_ client: Connection) async -> Bool {
        let reply = try? await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                           member: "NameHasOwner", [.string(Self.name)])
        return reply?.first == .boolean(true)
    }
}
