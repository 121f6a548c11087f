import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// Shows a handler's launch image while it starts, as the core's rule says (``LaunchFeedback``).
/// With an X display (X11, or Xwayland under a Wayland compositor) the separate
/// `schemebridge-splash` helper draws it, so the service itself never links or talks to X;
/// otherwise (a Wayland session without Xwayland, or no display) a freedesktop notification
/// carries the image when a notification server is on the bus, else nothing is shown. Opening
/// works the same in every case.
final class LaunchImagePresenter: Sendable {
    let connection: Connection
    let logger: Logger
    /// The splash helper (Core's ``SplashHelper``).
    let splash: SplashHelper

    init(connection: Connection, environment: [String: String], logger: Logger) {
        self.connection = connection
        self.logger = logger
        self.splash = SplashHelper(environment: environment, log: { warning, message in warning ? logger.warning("\(message)") : logger.notice("\(message)") })
    }

    /// How an image would be presented now.
    var mode: LaunchImageMode { splash.mode }

    /// Shows `image` in a notification when a notification server is on the bus; returns
    /// whether one is (the notification itself is sent without waiting for its reply).
    func notify(image: String, entry: DesktopEntry) async -> Bool {
        guard (try? await BusDriver(connection).nameHasOwner("org.freedesktop.Notifications")) == true else { return false }
        let name = entry.name ?? entry.id.fileName
        let (connection, logger) = (self.connection, self.logger)
        Task {
            do {
                _ = try await connection.call(
                    destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.freedesktop.Notifications", member: "Notify",
                    [.string("SchemeBridge"), .uint32(0), .string(""), .string("Opening \(name)"), .string(""),
                     .strings([]), .vardict(["image-path": .string(image), "transient": .boolean(true),
                                             "desktop-entry": .string(DesktopID.appID(Contract.ownDesktopID))]),
                     .int32(3000)], timeout: .seconds(5))
            } catch {
                logger.info("the notification server did not show the launch image: \(DBusError.from(error).message)")
            }
        }
        return true
    }
}
