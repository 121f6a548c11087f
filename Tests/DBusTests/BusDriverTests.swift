import Testing
import DBus
import DBusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The typed bus-driver client against a real private dbus-daemon: what it answers about
/// connections and names, its errors, and `NameOwnerChanged` when a connection leaves.
@Suite struct BusDriverTests {
    @Test func answersAboutConnectionsAndNames() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let client = try await Connection.connect(address: bus.address)
        defer { client.close() }
        let driver = BusDriver(client)
        let me = try await driver.credentials(of: client.uniqueName)
        #expect(me.processID == UInt32(getpid()))
        #expect(me.unixUserID == getuid())
        #expect(try await driver.processID(of: client.uniqueName) == UInt32(getpid()))
        #expect(try await driver.nameOwner(BusDriver.name.rawValue) == BusDriver.name.rawValue)
        #expect(try await driver.nameHasOwner(client.uniqueName))
        #expect(try await !driver.nameHasOwner("org.example.Nobody"))
        #expect(try await driver.activatableNames().contains(BusDriver.name.rawValue))
        #expect(try await driver.id().count == 32)
        do {
            _ = try await driver.nameOwner("org.example.Nobody")
            Issue.record("a name without owner has no owner")
        } catch {
            #expect(error.name.rawValue == "org.freedesktop.DBus.Error.NameHasNoOwner")
        }
    }

    @Test func seesAConnectionLeave() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let watcher = try await Connection.connect(address: bus.address)
        defer { watcher.close() }
        let changes = try await BusDriver(watcher).nameOwnerChanges()
        let other = try await Connection.connect(address: bus.address)
        let name = other.uniqueName
        other.close()
        var seen: NameOwnerChanged?
        for await change in changes where change.name == name && change.isConnectionLeaving {
            seen = change
            break
        }
        #expect(seen == NameOwnerChanged(name: name, oldOwner: name, newOwner: ""))
    }
}
