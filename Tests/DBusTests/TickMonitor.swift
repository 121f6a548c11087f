import DBus
import DBusTestSupport
import Foundation

/// dbus-monitor on a ``TestService``'s bus, printing its `Tick` signals and every method return:
/// the order in which they went out.
struct TickMonitor {
    let service: TestService
    let log: URL
    let monitor: ChildProcess

    /// Starts the monitor and waits until it is ready (it has printed its own `NameLost`).
    init(_ service: TestService) async throws {
        self.service = service
        log = service.bus.directory.appendingPathComponent("monitor.log")
        monitor = try Tools.spawn(["dbus-monitor", "--address", service.bus.address,
                                   "type='signal',interface='\(TestService.interface)'", "type='method_return'"], stdout: log)
        _ = await Tools.eventually { text.contains("member=NameLost") }
    }

    /// Runs `body` with a started ``TestService``, a monitor of its bus and a client connection.
    static func watching(_ body: (TestService, TickMonitor, Connection) async throws -> Void) async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let monitor = try await TickMonitor(service)
        defer { monitor.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        try await body(service, monitor, client)
    }

    var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    func stop() { monitor.terminate() }

    /// Waits for the `Tick` carrying `n` and for the service's reply to `client`; whether the reply
    /// came first (nil: one of them never came).
    func replyPrecedesTick(_ n: UInt32, client: Connection) async -> Bool? {
        let replyLine = "sender=\(service.connection.uniqueName) -> destination=\(client.uniqueName) "
        func isReply(_ line: Substring) -> Bool { line.hasPrefix("method return") && line.contains(replyLine) }
        _ = await Tools.eventually { text.contains("uint32 \(n)") && text.split(separator: "\n").contains(where: isReply) }
        let lines = text.split(separator: "\n")
        guard let tick = lines.firstIndex(where: { $0.contains("uint32 \(n)") }), let reply = lines.firstIndex(where: isReply) else { return nil }
        return reply < tick
    }
}
