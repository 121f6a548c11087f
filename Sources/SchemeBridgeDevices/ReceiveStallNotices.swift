import DBus
import SchemeBridgeCore

/// The core's ``ReceiveStallPort`` over the bus: a notice through ``DesktopNotifications`` (kept
/// until the user or ``withdraw(_:)`` closes it), withdrawn with `CloseNotification`.
public struct ReceiveStallNotices: ReceiveStallPort {
    let notifications: DesktopNotifications

    /// Notices on `connection`.
    public init(connection: Connection) { notifications = DesktopNotifications(connection: connection) }

    public func bodyMarkup() async -> Bool { (try? await notifications.capabilities())?.contains("body-markup") == true }

    public func show(summary: String, body: String) async -> UInt32? {
        let notification = DesktopNotifications.Notification(
            appName: "SchemeBridge", appIcon: "dialog-warning", summary: summary, body: body, actions: [],
            hints: ["category": .string("transfer.error"), "urgency": .byte(1)], expireTimeout: 0)  // each in its one variant (`a{sv}`)
        return try? await notifications.notify(notification).id
    }

    public func withdraw(_ id: UInt32) async { try? await notifications.close(id) }
}
