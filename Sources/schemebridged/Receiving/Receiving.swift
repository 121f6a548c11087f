import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// What a device sends (KDE Connect's `shareReceived`), opened as the core's
/// ``ReceivedOpeningPort`` extension says (``ReceivedAction``, checked where the engine writes:
/// ``ReceivedPlaces``): a file through ``Opening/openDocument(_:name:fileName:type:options:caller:receivedFrom:)``
/// (the app for its type, asked or the default, a read-only Inbox copy, the same quotas and
/// checks as `OpenFile`); a URL the URL path. Both as the engine (``engineCaller``).
struct Receiving: ReceivedOpeningPort {
    let policy: PolicyStore
    let devices: DeviceService
    let descriptors: DescriptorWork
    let opening: Opening
    let logger: Logger

    /// The caller a received share is charged to and shown as (`source`): its identity, its launch quota.
    static let engineCaller = Caller(busName: "kdeconnect", pid: nil, id: AppID("org.kde.kdeconnect.daemon").map(CallerID.flatpak))

    var nearbyDevices: [NearbyDevice] { devices.engine.devices }
    var directories: XDGDirectories { devices.directories }
    var documents: Documents { opening.documents }
    var runner: any DescriptorRunner { descriptors }
    var openReceived: OpenReceived { policy.current.openReceived }
    func opensScheme(_ scheme: String) -> Bool { opening.registry.schemes.contains(scheme) }
    func failure(_ error: any Error) -> ReceivedNotifierFailure { ReceivedNotifierFailure(DBusError.from(error)) }

    func openDocument(_ fd: Int32, name: String, type: ContentType, ask: Bool, from: String) async throws -> String {
        var options = OpenOptions()
        options.ask = ask
        return try await opening.openDocument(UnixFD(owning: fd), name: name, type: type, options: options, caller: Self.engineCaller, receivedFrom: from).handler
    }

    func openURL(_ url: String, ask: Bool) async throws -> String {
        let options: [String: DBusValue] = [OpenOptions.Key.ask: .variant(.boolean(ask))]
        return try await opening.open(url, options: options, sender: "kdeconnect", method: ContractMethod.openURLWithOptions, as: Self.engineCaller).handler
    }

    func log(_ level: ReceivedNotifierLogLevel, _ message: String) { logger.log(level, message) }

    /// Opens `folder` (where a device's files were put) with the default app for folders, or the
    /// one the user picks (`ask`), as the engine (``engineCaller``).
    func openReceivedFolder(_ folder: String, ask: Bool) async throws -> OpenResults {
        var options = OpenOptions()
        options.ask = ask
        let type = ContentType(detected: "inode/directory")
        let decided = try await opening.handler(for: .document(type), options: options, caller: Self.engineCaller)
        guard let id = decided.id, let entry = opening.registry.entry(id: id.desktopID) else {
            throw ContractError.noHandler("no installed application opens folders")
        }
        let admission = try opening.broker.admit(folder: folder, entry: entry, caller: Self.engineCaller, searchPath: opening.searchPath,
                                                 sessionScale: opening.scale.current)
        return try await opening.launch(admission, annotation: nil, caller: Self.engineCaller, method: ContractMethod.openFile, reply: nil,
                                        contentType: type.name)
    }
}
