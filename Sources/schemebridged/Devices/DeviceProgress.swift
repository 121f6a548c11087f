import DBus
import SchemeBridgeCore
import SchemeBridgeDevices
import Synchronization

/// A followed device transfer's progress where the user is: one desktop notification
/// (`org.freedesktop.Notifications`) "Sending to <device>" with the file names, the percentage
/// (the `value` hint, and in its body) and a "Cancel" action that asks the engine to cancel the
/// job (``KDEConnectJobs/cancel(_:)``), replaced in place as the engine reports, and closed by
/// a last one that says how it ended. Shown only for a job the engine still runs after half a
/// second (the job tracker reports no shorter one), so a small file shows nothing. Without a
/// notification server nothing is shown and nothing fails.
final class DeviceProgress: Sendable {
    static let bus: BusName = "org.freedesktop.Notifications"
    static let path: ObjectPath = "/org/freedesktop/Notifications"
    static let interface: InterfaceName = "org.freedesktop.Notifications"

    private enum Step: Sendable { case percent(UInt64, UInt32), done(DeviceDelivery) }
    private let steps = AsyncStream<Step>.makeStream()
    private let connection: Connection
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// The notification shown (its id, 0 before the first), the job view it is for, and the
    /// notifications whose Cancel was clicked (a click may come before Notify's reply is read).
    private let current = Mutex<(shown: UInt32, view: UInt64?, clicked: Set<UInt32>)>((0, nil, []))

    init(devices: DeviceService, device: String, names: [String], jobs: KDEConnectJobs) {
        connection = devices.engine.connection
        let (connection, stream) = (connection, steps.stream)
        let title = "Sending to \(DeviceName.sanitized(device))"
        let files = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
        let job = Task { [self] in
                var actions: Task<Void, Never>?
                defer { actions?.cancel() }
                for await step in stream {
                    let shown = self.current.withLock { $0.shown }
                    switch step {
                    case .percent(let id, let percent):
                        self.current.withLock { $0.view = id }
                        if shown == 0 {
                            // Cancel: the notification's action, from the notification server alone.
                            let rule = MatchRule(sender: Self.bus, interface: Self.interface, member: "ActionInvoked")
                            if let invoked = try? await connection.signals(matching: rule) {
                                let owner = try? await BusDriver(connection).nameOwner(Self.bus.rawValue)
                                actions = Task { [jobs, self] in
                                                        for await m in invoked where m.sender == owner {
                                        guard case .uint32(let n)? = m.body.first, m.body.dropFirst().first?.string == "cancel" else { continue }
                                        let view = self.current.withLock { s -> UInt64? in
                                            s.clicked.insert(n)
                                            return n == s.shown ? s.view : nil
                                        }
                                        if let view { jobs.cancel(view) }
                                    }
                                }
                            }
                        }
                        let id = await Self.notify(connection, replacing: shown, title, "\(files): \(percent)%", actions: ["cancel", "Cancel"],
                                                   hints: ["value": .int32(Int32(percent)), "transient": .boolean(true)])
                        if let id {
                            let clicked = self.current.withLock { s -> UInt64? in
                                s.shown = id
                                return s.clicked.contains(id) ? s.view : nil
                            }
                            if let clicked { jobs.cancel(clicked) }
                        }
                    case .done(let delivery):
                        guard shown != 0 else { return }
                        let how: String
                        switch delivery {
                        case .delivered: how = "sent"
                        case .failed: how = "failed"
                        case .unknown: how = "not finished in time: whether it arrives is unknown"
                        case .handedToEngine: how = "handed to the engine"
                        }
                        _ = await Self.notify(connection, replacing: shown, title, "\(files): \(how)", actions: [], hints: [:])
                        return
                    }
                }
        }
        task.withLock { $0 = job }
    }

    /// The engine reported `percent` for job view `view`.
    func show(view: UInt64, percent: UInt32) { steps.continuation.yield(.percent(view, percent)) }

    /// The transfer ended as `delivery`.
    func done(_ delivery: DeviceDelivery) {
        steps.continuation.yield(.done(delivery))
        steps.continuation.finish()
    }

    /// `Notify`; the notification's id, nil when no server answers.
    private static func notify(_ connection: Connection, replacing id: UInt32, _ summary: String, _ body: String, actions: [String],
                               hints: [String: DBusValue]) async -> UInt32? {
        let reply = try? await connection.call(destination: bus, path: path, interface: interface, member: "Notify", [
            .string("SchemeBridge"), .uint32(id), .string("document-send"), .string(summary), .string(body), .strings(actions),
            .vardict(hints), .int32(-1),
        ], timeout: .seconds(5))
        guard case .uint32(let n)? = reply?.first else { return nil }
        return n
    }
}
