import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The one launcher: the core's ``PlanLauncher`` over ``ApplicationBus``.
typealias Launcher = PlanLauncher<ApplicationBus>

/// The core's ``LaunchPort``: the bus driver (activation), the entry's `org.freedesktop.Application`
/// (``FreedesktopApplication``), and a freedesktop notification carrying a launch image where no
/// splash can be drawn (a Wayland session without Xwayland, or no display).
struct ApplicationBus: LaunchPort {
    let connection: Connection, callers: CallerCache, logger: Logger

    func callApplication(_ call: ApplicationCall, busName: String, objectPath: String, uris: [String], platformData: [String: String],
                         urisInPlatformData: Bool, annotation: DBusValue?) async throws(BusCallFailure) -> String? {
        var platform = platformData.mapValues { DBusValue.string($0) }
        if let annotation { platform["annotation"] = annotation }
        if urisInPlatformData { platform["uris"] = .strings(uris) }
        do throws(DBusError) {
            let app = try FreedesktopApplication(connection: connection, busName: busName, objectPath: objectPath)
            switch call {
            case .open: return try await app.open(uris, platformData: platform)
            case .activateAction(let action): return try await app.activateAction(action, platformData: platform)
            case .activate: return try await app.activate(platformData: platform)
            }
        } catch {
            throw BusCallFailure(name: error.name.rawValue, message: error.message)
        }
    }

    func notify(image: String, entry: DesktopEntry) async -> Bool {
        guard (try? await BusDriver(connection).nameHasOwner("org.freedesktop.Notifications")) == true else { return false }
        let (connection, logger, name) = (self.connection, self.logger, entry.name ?? entry.id.fileName)
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

    func afterReply(_ work: @escaping @Sendable () -> Void) { connection.afterReply(work) }
    func startService(_ busName: String) async { _ = try? await BusDriver(connection).startService(busName) }
    func owner(of busName: String) async -> String? { try? await BusDriver(connection).nameOwner(busName) }
    func processID(of busName: String) async -> UInt32? { await callers.processID(of: busName) }
}

extension PlanLauncher.Started {
    /// How it was started, as `URLHandled` says.
    var kind: URLHandled.Launch { activated ? .dbusActivation : .spawn }
}

extension PlanLauncher where Port == ApplicationBus { var connection: Connection { port.connection } }
