import DBus
import Glibc
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// What a device sends (KDE Connect's `shareReceived`), done as the core's ``ReceivedAction``
/// says: a file goes the document path (`openDocument`: the app for its type, asked or the
/// default, a read-only Inbox copy, the same quotas and checks as `OpenFile`); a URL the URL path.
/// Only what is where the engine writes is opened (``ReceivedPlaces``, judged on the opened file).
struct Receiving: Sendable {
    let policy: PolicyStore
    let devices: DeviceService
    let descriptors: DescriptorWork
    let opening: Opening
    let logger: Logger

    /// The caller a received share is charged to and shown as (`source`).
    static let engineCaller = Caller(busName: "kdeconnect", pid: nil, appID: "org.kde.kdeconnect.daemon")

    /// Opens what a device sent, as the core's ``ReceivedAction`` says; failures are logged
    /// (nobody waits for an answer).
    func openReceived(_ received: ReceivedFromDevice) async {
        let mode = policy.current.openReceived
        let from = devices.engine.devices.first { $0.id == received.deviceID }?.name ?? received.deviceID
        let sender = "kdeconnect"
        do throws(DBusError) {
            let registry = opening.registry
            // Where the engine writes: read (its config, the folders resolved) on a descriptor thread.
            let (directories, device, engineDirectory) = (devices.directories, received.deviceID, received.engineDirectory)
            let places = { @Sendable in ReceivedPlaces.kdeconnect(directories, deviceID: device, engineDirectory: engineDirectory) }
            let action = try await received.share.action(mode: mode, urlInText: { path throws(DBusError) in try await receivedURL(.text(path), places: places) },
                                                         opensScheme: { registry.schemes.contains($0) })
            switch action {
            case .leave:
                logger.info("received a share from \(from); [Devices] OpenReceived=never leaves it where KDE Connect put it")
            case .openFile(let share, let ask):
                var options = OpenOptions()
                options.ask = ask
                let results = try await openReceivedFile(share, places: places, options: options, sender: sender)
                logger.info("opened the \(share.kind) \(from) sent with \(results.handler)")
            case .openURL(let url, let ask):
                let raw: [String: DBusValue] = [OpenOptions.Key.ask: .variant(.boolean(ask))]
                let results = try await opening.open(url, options: raw, sender: sender, method: ContractMethod.openURLWithOptions)
                logger.info("opened the URL \(from) sent with \(results.handler)")
            }
        } catch {
            logger.warning("could not open what \(from) sent: \(error.name.rawValue): \(error.message)")
        }
    }

    /// Opens `share` where the engine writes (``ReceivedPlaces/open(_:)``: no symlink followed,
    /// no FIFO waited on, nothing outside those places), then hands it to
    /// ``Opening/openDocument(_:name:fileName:type:options:caller:)`` as `OpenFile` would, its type detected.
    private func openReceivedFile(_ share: ReceivedShare, places: @escaping @Sendable () -> ReceivedPlaces, options: OpenOptions,
                                  sender: String) async throws(DBusError) -> OpenResults {
        let documents = opening.documents
        let (owned, name, type) = try await descriptors.run(for: Self.engineCaller.appID ?? sender) { () throws(DBusError) in
            let fd = try adapt { () throws(ServiceFailure) in try places().open(share) }
            let owned = UnixFD(owning: fd)
            let (name, type) = try adapt { () throws(OpenFailure) in try documents.inspect(fd, contentType: nil) }
            return (owned, name, type)
        }
        return try await opening.openDocument(owned, name: name, type: type, options: options, caller: Self.engineCaller)
    }

    /// The URL received text is, if it is one (``ReceivedShare/url(inDescriptor:)`` on a
    /// descriptor thread, the text opened where the engine writes).
    private func receivedURL(_ share: ReceivedShare, places: @escaping @Sendable () -> ReceivedPlaces) async throws(DBusError) -> String? {
        try await descriptors.run(for: Self.engineCaller.appID ?? "kdeconnect") { () throws(DBusError) in
            let fd = try adapt { () throws(ServiceFailure) in try places().open(share) }
            defer { close(fd) }
            return ReceivedShare.url(inDescriptor: fd)
        }
    }
}
