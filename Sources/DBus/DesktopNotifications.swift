/// A typed client of the desktop's notification server (`org.freedesktop.Notifications`,
/// the Desktop Notifications Specification 1.2): `GetServerInformation`, `GetCapabilities`,
/// `Notify`, `CloseNotification`, and its `ActionInvoked` and `NotificationClosed` signals.
///
/// Signals are believed only from the server that showed the notification: each ``Shown``
/// carries the unique name that owned `org.freedesktop.Notifications` when it was shown, and
/// ``events()`` yields each signal with its sender, for the caller to compare (another client
/// can emit a look-alike `ActionInvoked`; the bus does not stop it).
public struct DesktopNotifications: Sendable {
    /// `org.freedesktop.Notifications` (bus name and interface).
    public static let busName: BusName = "org.freedesktop.Notifications"
    public static let interface: InterfaceName = "org.freedesktop.Notifications"
    /// `/org/freedesktop/Notifications`.
    public static let path: ObjectPath = "/org/freedesktop/Notifications"

    /// What the server says it is (`GetServerInformation`).
    public struct ServerInformation: Sendable, Equatable {
        public var name: String
        public var vendor: String
        public var version: String
        public var specVersion: String
        /// The unique name that answered.
        public var owner: String
    }

    /// One notification to show.
    public struct Notification: Sendable, Equatable {
        /// `app_name`: the program that sends it.
        public var appName: String
        /// `app_icon`: an icon name or `file://` URI ("" for none).
        public var appIcon: String
        public var summary: String
        public var body: String
        /// `actions`: key, label, key, label…
        public var actions: [String]
        /// `hints` (`urgency`, `category`, `desktop-entry`, …).
        public var hints: [String: DBusValue]
        /// `expire_timeout` in milliseconds: -1 the server's default, 0 never.
        public var expireTimeout: Int32

        public init(appName: String, appIcon: String = "", summary: String, body: String, actions: [String] = [],
                    hints: [String: DBusValue] = [:], expireTimeout: Int32 = -1) {
            self.appName = appName
            self.appIcon = appIcon
            self.summary = summary
            self.body = body
            self.actions = actions
            self.hints = hints
            self.expireTimeout = expireTimeout
        }
    }

    /// A notification shown: the server's id for it and the unique name of the server.
    public struct Shown: Sendable, Equatable, Hashable {
        public var id: UInt32
        public var owner: String

        public init(id: UInt32, owner: String) {
            self.id = id
            self.owner = owner
        }
    }

    /// What the server reports about a notification.
    public enum Event: Sendable, Equatable {
        /// `ActionInvoked(u id, s action_key)`: the user chose an action.
        case actionInvoked(id: UInt32, action: String, sender: String)
        /// `NotificationClosed(u id, u reason)`: 1 expired, 2 dismissed, 3 closed by a call, 4 other.
        case closed(id: UInt32, reason: UInt32, sender: String)
    }

    public let connection: Connection

    public init(connection: Connection) {
        self.connection = connection
    }

    /// `GetServerInformation`: starts an activatable server; `ServiceUnknown` (or
    /// `NameHasNoOwner`) when there is none on the bus.
    public func serverInformation(timeout: Duration = .seconds(5)) async throws(DBusError) -> ServerInformation {
        let message = try await connection.callMessage(destination: Self.busName, path: Self.path, interface: Self.interface,
                                                       member: "GetServerInformation", timeout: timeout)
        let (reply, owner) = (message.body, message.sender ?? "")
        let s = reply.map { $0.string ?? "" }
        guard s.count == 4 else { throw DBusError(.invalidArgs, "GetServerInformation answered \(reply.count) values, not 4") }
        return ServerInformation(name: s[0], vendor: s[1], version: s[2], specVersion: s[3], owner: owner)
    }

    /// `GetCapabilities`: `actions`, `body`, `body-markup`, `persistence`, …
    public func capabilities(timeout: Duration = .seconds(5)) async throws(DBusError) -> [String] {
        let reply = try await call("GetCapabilities", [], timeout: timeout)
        return (reply.first?.arrayElements ?? []).compactMap(\.string)
    }

    /// `Notify`: shows `notification` (replacing notification `replacing`, 0 for none);
    /// returns its id and the unique name of the server that answered.
    public func notify(_ notification: Notification, replacing: UInt32 = 0, timeout: Duration = .seconds(5)) async throws(DBusError) -> Shown {
        let message = try await connection.callMessage(destination: Self.busName, path: Self.path, interface: Self.interface, member: "Notify", [
            .string(notification.appName), .uint32(replacing), .string(notification.appIcon), .string(notification.summary),
            .string(notification.body), .strings(notification.actions), .vardict(notification.hints), .int32(notification.expireTimeout),
        ], timeout: timeout)
        guard case .uint32(let id)? = message.body.first, let owner = message.sender else { throw DBusError(.invalidArgs, "Notify answered no notification id") }
        return Shown(id: id, owner: owner)
    }

    /// `CloseNotification(u id)`.
    public func close(_ id: UInt32, timeout: Duration = .seconds(5)) async throws(DBusError) {
        _ = try await call("CloseNotification", [.uint32(id)], timeout: timeout)
    }

    /// The server's `ActionInvoked` and `NotificationClosed` signals from now on, each with its
    /// sender (compare it with ``Shown/owner``). Subscribed before this returns.
    public func events() async throws(DBusError) -> AsyncStream<Event> {
        let messages = try await connection.signals(matching: MatchRule(sender: Self.busName, interface: Self.interface, path: Self.path))
        return AsyncStream { continuation in
            let task = Task {
                for await message in messages {
                    guard let sender = message.sender, message.interface == Self.interface else { continue }
                    switch (message.member?.rawValue, message.body.first, message.body.dropFirst().first) {
                    case ("ActionInvoked", .uint32(let id)?, .string(let action)?):
                        continuation.yield(.actionInvoked(id: id, action: action, sender: sender))
                    case ("NotificationClosed", .uint32(let id)?, .uint32(let reason)?):
                        continuation.yield(.closed(id: id, reason: reason, sender: sender))
                    default:
                        continue
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func call(_ member: MemberName, _ arguments: [DBusValue], timeout: Duration) async throws(DBusError) -> [DBusValue] {
        try await connection.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: member, arguments, timeout: timeout)
    }
}

/// A typed client of the file manager's `org.freedesktop.FileManager1` (`ShowItems`: open the
/// folders holding the items, the items selected), where one runs or can be activated.
public struct FileManager1: Sendable {
    public static let busName: BusName = "org.freedesktop.FileManager1"
    public static let interface: InterfaceName = "org.freedesktop.FileManager1"
    public static let path: ObjectPath = "/org/freedesktop/FileManager1"

    public let connection: Connection

    public init(connection: Connection) {
        self.connection = connection
    }

    /// Whether a file manager owns the name now or the bus can start one.
    public func isAvailable(timeout: Duration = .seconds(2)) async -> Bool {
        await BusDriver(connection).isAvailable(Self.busName.rawValue, timeout: timeout)
    }

    /// `ShowItems(as uris, s startup_id)`.
    public func showItems(_ uris: [String], startupID: String = "", timeout: Duration = .seconds(25)) async throws(DBusError) {
        _ = try await connection.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: "ShowItems",
                                      [.strings(uris), .string(startupID)], timeout: timeout)
    }
}
