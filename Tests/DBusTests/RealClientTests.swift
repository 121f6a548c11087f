import Foundation
import Testing
import DBus
import DBusTestSupport

/// The layer seen through the clients people really use: dbus-send, gdbus, python3-dbus,
/// dbus-monitor.
@Suite struct RealClientTests {
    @Test func dbusSendCallsAnExportedMethod() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let r = try await Tools.run(["dbus-send", "--bus=\(service.bus.address)", "--print-reply", "--dest=\(TestService.name)",
                                     TestService.path.rawValue, "\(TestService.interface).Concat", "string:it's", "string: $(ok)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#"string "it's $(ok)""#), "\(r.stdout)")

        let bad = try await Tools.run(["dbus-send", "--bus=\(service.bus.address)", "--print-reply", "--dest=\(TestService.name)",
                                       TestService.path.rawValue, "\(TestService.interface).Concat", "int32:5"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(bad.stderr)")

        let ping = try await Tools.run(["dbus-send", "--bus=\(service.bus.address)", "--print-reply", "--dest=\(TestService.name)",
                                        TestService.path.rawValue, "org.freedesktop.DBus.Peer.Ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
    }

    @Test func gdbusCallsAndIntrospects() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let r = try await Tools.run(["gdbus", "call", "--address", service.bus.address, "--dest", TestService.name.rawValue,
                                     "--object-path", TestService.path.rawValue, "--method", "\(TestService.interface).Echo",
                                     "<{'handler': <'todo.desktop'>, 'pid': <uint32 7>}>"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("'handler': <'todo.desktop'>") && r.stdout.contains("'pid': <uint32 7>"), "\(r.stdout)")

        let intro = try await Tools.run(["gdbus", "introspect", "--address", service.bus.address, "--dest", TestService.name.rawValue,
                                         "--object-path", TestService.path.rawValue])
        #expect(intro.status == 0, "\(intro.stderr)")
        #expect(intro.stdout.contains("Concat(in  s a,"), "\(intro.stdout)")
        #expect(intro.stdout.contains("readwrite u Counter"), "\(intro.stdout)")

        let err = try await Tools.run(["gdbus", "call", "--address", service.bus.address, "--dest", TestService.name.rawValue,
                                       "--object-path", TestService.path.rawValue, "--method", "\(TestService.interface).Fail", "install it"])
        #expect(err.status != 0)
        #expect(err.stderr.contains("org.example.Test.Error.Custom") && err.stderr.contains("install it"), "\(err.stderr)")
    }

    @Test func python3DBusCallsAndReceivesSignals() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let r = try await Tools.run(TestService.clients.command("echo-and-ticks", [service.bus.address] + TestService.names))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("echo [('a', 'UInt32'), ('b', 's')]"), "\(r.stdout)")
        #expect(r.stdout.contains("error org.freedesktop.DBus.Error.InvalidArgs"), "\(r.stdout)")
        #expect(r.stdout.contains("ticks [0, 1, 2]"), "\(r.stdout)")
    }

    @Test func dbusMonitorSeesEmittedSignals() async throws {
        try await TickMonitor.watching { service, monitor, _ in
            try service.connection.emit(path: TestService.path, interface: TestService.interface, member: "Tick", [.uint32(42)])
            let seen = await Tools.eventually {
                let text = monitor.text
                return text.contains("interface=\(TestService.interface); member=Tick") && text.contains("uint32 42")
            }
            #expect(seen, "\(monitor.text)")
        }
    }

    /// A signal an async handler emits for its reply (`emitWithReply`) goes out when the handler
    /// ends, just after the reply — not while the handler still runs, nor before the reply the
    /// caller waits for; a plain `emit` goes at once.
    @Test func aSignalEmittedWithTheReplyGoesOutWithItWhenTheHandlerEnds() async throws {
        try await TickMonitor.watching { service, monitor, client in
            let call = Task {
                try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "EmitHeld", [.uint32(7)])
            }
            #expect(await Tools.eventually { service.hold.waiting == 1 })
            // Emitted after the held signal, sent at once: it is on the bus first.
            try service.connection.emit(path: TestService.path, interface: TestService.interface, member: "Tick", [.uint32(99)])
            #expect(await Tools.eventually { monitor.text.contains("uint32 99") }, "\(monitor.text)")
            #expect(!monitor.text.contains("uint32 7"), "the signal for the reply went out while the handler ran: \(monitor.text)")
            service.hold.releaseAll()
            _ = try await call.value
            #expect(await monitor.replyPrecedesTick(7, client: client) == true, "the reply before the signal: \(monitor.text)")
        }
    }

    /// A signal emitted with the reply from work left for after it (`afterReply`) goes out there
    /// and then — not in a later turn of the loop: here the work then holds the loop thread, and
    /// the signal is on the bus meanwhile.
    @Test func aSignalEmittedFromWorkAfterTheReplyGoesOutThere() async throws {
        try await TickMonitor.watching { service, monitor, client in
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "EmitAfterReply", [.uint32(8)])
            #expect(await Tools.eventually { monitor.text.contains("uint32 8") }, "the signal waited for the loop thread: \(monitor.text)")
            service.loopGate.open()
        }
    }
}
