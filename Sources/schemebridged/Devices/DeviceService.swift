import DBus
import LinuxSystem
import Logging
import SchemeBridgeCore
import SchemeBridgeDevices

/// Nearby devices in the service: the KDE Connect engine followed live (``KDEConnectEngine``),
/// GSConnect too (``GSConnectEngine``, used only when KDE Connect is not on the bus), and the
/// core's ``OutboxKeeper`` (data that is not a file becomes one the engine can send; swept at
/// start and whenever its next item expires).
final class DeviceService: Sendable {
    let engine: KDEConnectEngine
    /// GSConnect, followed beside KDE Connect; shares go to it only when KDE Connect is absent.
    let gsconnect: GSConnectEngine
    let outbox: OutboxKeeper
    /// The session's folders (where KDE Connect's downloads are: ``ReceivedPlaces``).
    let directories: XDGDirectories
    let logger: Logger
    /// The session's `XDG_CURRENT_DESKTOP` (a KDE session has its own job viewer).
    let desktop: String?

    init(connection: Connection, environment: [String: String], descriptors: DescriptorWork, logger: Logger) {
        (engine, gsconnect) = (KDEConnectEngine(connection: connection, logger: logger), GSConnectEngine(connection: connection, logger: logger))
        outbox = OutboxKeeper(outbox: Outbox(environment: environment), runner: descriptors) { level, line in
            if level == .info { logger.info("\(line)") } else { logger.debug("\(line)") }
        }
        (directories, self.logger, desktop) = (XDGDirectories(environment: environment), logger, environment["XDG_CURRENT_DESKTOP"])
        sender = PreferredDeviceEngine(kdeconnect: engine, gsconnect: gsconnect)
        shareSender = DeviceShareSender(sender: sender, jobs: engine.jobs, followedEngine: engine.engineName)
    }

    /// Starts following the engine and sweeps the outbox (what a previous run left expires now
    /// or later, by its own expiry).
    func start() async {
        do {
            try await engine.start()
        } catch {
            logger.warning("cannot follow KDE Connect (no device targets): \(error)")
        }
        await engine.jobs.start(desktop: desktop)
        do {
            try await gsconnect.start()
        } catch {
            logger.warning("cannot follow GSConnect (no GSConnect device targets): \(error)")
        }
        if outbox.outbox == nil { logger.notice("XDG_RUNTIME_DIR is not set: data that is not a file cannot be sent to devices") }
        await outbox.sweep()
    }

    /// The device sending path the share service calls (``DeviceSending``): KDE Connect,
    /// or GSConnect where only it is on the bus (``PreferredDeviceEngine``: it picks at each use).
    let sender: PreferredDeviceEngine

    /// Sends through ``sender``, following KDE Connect's uploads (``KDEConnectJobs``).
    let shareSender: DeviceShareSender<KDEConnectJobs>

    /// Stops following the engine and the pending sweep.
    func stop() {
        engine.stop()
        gsconnect.stop()
        outbox.stop()
    }
}
