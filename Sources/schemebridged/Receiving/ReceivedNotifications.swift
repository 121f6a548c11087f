import DBus
import Logging
import SchemeBridgeCore
import SchemeBridgeDevices

/// The core's ``ReceivedNotifier`` (one notification per transfer of what a device sent, its
/// answers, "Not from this device") over the bus: `org.freedesktop.Notifications`
/// (``DesktopNotifications``), `org.freedesktop.FileManager1`; opening, naming and checking
/// what was sent are the core's ``ReceivedOpeningPort`` rules.
extension Receiving: ReceivedNotifierPort {
    var notifications: DesktopNotifications { DesktopNotifications(connection: devices.engine.connection) }
    var fileManager: FileManager1 { FileManager1(connection: devices.engine.connection) }

    /// The notifier over this port, remembering blocked devices in the user's list.
    func notifier() -> ReceivedNotifier<Self> {
        ReceivedNotifier(port: self, blockedPath: BlockedDevices.defaultPath(directories: directories))
    }

    /// Hands the notification server's answers to `notifier`, until the task is cancelled.
    func follow(_ notifier: ReceivedNotifier<Self>) async -> Task<Void, Never>? {
        do {
            let stream = try await notifications.events()
            return Task {
                for await event in stream {
                    switch event {
                    case .actionInvoked(let id, let name, let sender): await notifier.handle(.actionInvoked(.init(id: id, owner: sender), name: name))
                    case .closed(let id, _, let sender): await notifier.handle(.closed(.init(id: id, owner: sender)))
                    }
                }
            }
        } catch {
            logger.warning("cannot follow org.freedesktop.Notifications (received shares are asked about as without a notification server): \(error)")
            return nil
        }
    }

    func describe(_ shown: DesktopNotifications.Shown) -> (id: UInt32, owner: String) { (shown.id, shown.owner) }
    func close(_ shown: DesktopNotifications.Shown) async { try? await notifications.close(shown.id) }
    func fileManagerAvailable() async -> Bool { await fileManager.isAvailable() }

    func openFolder(_ folder: String, ask: Bool) async throws(ReceivedNotifierFailure) -> String {
        do { return try await openReceivedFolder(folder, ask: ask).handler } catch { throw failure(error) }
    }

    func notificationServer() async throws(ReceivedNotifierFailure) -> (name: String, capabilities: [String]) {
        try await Self.bus { () throws(DBusError) in
            let server = try await notifications.serverInformation()
            let capabilities = try await notifications.capabilities()
            guard capabilities.contains("actions") else { throw DBusError(.failed, "\(server.name) shows no actions") }
            return (server.name, capabilities)
        }
    }

    func notify(_ notice: ReceivedNotice, icon: String) async throws(ReceivedNotifierFailure) -> DesktopNotifications.Shown {
        let notification = DesktopNotifications.Notification(
            appName: "SchemeBridge", appIcon: icon, summary: notice.summary, body: notice.body, actions: notice.actionList,
            hints: ["category": .string("transfer.complete"), "urgency": .byte(1)])  // each in its one variant (`a{sv}`)
        return try await Self.bus { () throws(DBusError) in try await notifications.notify(notification) }
    }

    func showInFileManager(_ fileURLs: [String]) async throws(ReceivedNotifierFailure) {
        try await Self.bus { () throws(DBusError) in try await fileManager.showItems(fileURLs) }
    }

    /// `call`'s D-Bus error as the port's failure.
    static func bus<T>(_ call: () async throws(DBusError) -> T) async throws(ReceivedNotifierFailure) -> T {
        do { return try await call() } catch { throw ReceivedNotifierFailure(error) }
    }
}

extension ReceivedNotifierFailure {
    init(_ error: DBusError) { self.init(name: error.name.rawValue, message: error.message) }
}
