import DBus
import SchemeBridgeCore

/// The core's ``TransferProgress`` over the bus: one notification through
/// ``DesktopNotifications`` (the percentage in the `value` hint and "Cancel" while it runs,
/// transient), its "cancel" action believed only from the server's current owner, the job
/// cancelled through KDE Connect (``KDEConnectJobs/cancel(_:)``).
public struct DeviceProgressPort: TransferProgressPort {
    let notifications: DesktopNotifications
    let jobs: KDEConnectJobs

    /// Notifications on `connection`, jobs cancelled through `jobs`.
    public init(connection: Connection, jobs: KDEConnectJobs) { (notifications, self.jobs) = (DesktopNotifications(connection: connection), jobs) }

    public func notify(replacing id: UInt32, summary: String, body: String, percent: UInt32?) async -> UInt32? {
        let notification = DesktopNotifications.Notification(
            appName: "SchemeBridge", appIcon: "document-send", summary: summary, body: body, actions: percent == nil ? [] : ["cancel", "Cancel"],
            hints: percent.map { ["value": .int32(Int32($0)), "transient": .boolean(true)] } ?? [:])
        return try? await notifications.notify(notification, replacing: id).id
    }

    public func followCancels(_ clicked: @escaping @Sendable (UInt32) -> Void) async -> Task<Void, Never>? {
        guard let events = try? await notifications.events() else { return nil }
        let owner = try? await BusDriver(notifications.connection).nameOwner(DesktopNotifications.busName.rawValue)
        return Task {
            for await case .actionInvoked(let id, "cancel", let sender) in events where sender == owner { clicked(id) }
        }
    }

    public func cancel(view: UInt64) { jobs.cancel(view) }
}
