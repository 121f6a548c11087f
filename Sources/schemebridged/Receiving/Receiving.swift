import DBus
import Glibc
import LinuxSystem
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

    /// Opens what a device sent, as the core's ``ReceivedAction`` says under `mode` (the
    /// configured `[Devices] OpenReceived` when nil); failures are logged (nobody waits for an
    /// answer). A URL opens as the engine (``engineCaller``: its identity, its launch quota), as a
    /// file does. Returns whether something was started.
    @discardableResult
    func openReceived(_ received: ReceivedFromDevice, mode given: OpenReceived? = nil) async -> Bool {
        let mode = given ?? policy.current.openReceived
        let from = devices.engine.devices.first { $0.id == received.deviceID }?.name ?? received.deviceID
        let sender = "kdeconnect"
        do {
            let registry = opening.registry
            let places = receivedPlaces(received)
            let action = try await received.share.action(mode: mode, urlInText: { path throws in try await receivedURL(.text(path), places: places) },
                                                         opensScheme: { registry.schemes.contains($0) })
            switch action {
            case .leave:
                logger.info("received a share from \(from); [Devices] OpenReceived=never leaves it where KDE Connect put it")
                return false
            case .openFile(let share, let ask):
                var options = OpenOptions()
                options.ask = ask
                let results = try await openReceivedFile(share, places: places, options: options, sender: sender, from: from)
                logger.info("opened the \(share.kind) \(from) sent with \(results.handler)")
            case .openURL(let url, let ask):
                let raw: [String: DBusValue] = [OpenOptions.Key.ask: .variant(.boolean(ask))]
                let results = try await opening.open(url, options: raw, sender: sender, method: ContractMethod.openURLWithOptions, as: Self.engineCaller)
                logger.info("opened the URL \(from) sent with \(results.handler)")
            }
            return true
        } catch {
            let error = DBusError.from(error)
            logger.warning("could not open what \(from) sent: \(error.name.rawValue): \(error.message)")
            return false
        }
    }

    /// The name device `id` has in the engine (sanitised); a placeholder when it is not listed now.
    func deviceName(_ id: String) -> String {
        devices.engine.devices.first { $0.id == id }?.name ?? "A device that is not listed now"
    }

    /// The kind device `id` is in the engine (its icon); a phone when it is not listed now.
    func deviceKind(_ id: String) -> DeviceKind {
        devices.engine.devices.first { $0.id == id }?.kind ?? .phone
    }

    /// What a received share is, for its notification, checked where the engine writes
    /// (``ReceivedPlaces``): a file by name, text that is one URL of a scheme some app opens as
    /// that link, other text as text. Nil (with a warning) when it is not where the engine puts
    /// what devices send, or cannot be opened.
    func receivedItem(_ received: ReceivedFromDevice) async -> ReceivedNotice.Item? {
        let places = receivedPlaces(received)
        do {
            switch received.share {
            case .file(let path):
                let share = received.share
                try await descriptors.run(for: Self.engineCaller.appID ?? "kdeconnect") { () throws -> Void in
                    _ = try places().open(share)  // opened, and closed
                }
                return .file(ReceivedNotice.fileName(path))
            case .text:
                if let url = try await receivedURL(received.share, places: places), let scheme = try? Scheme(String(url.prefix { $0 != ":" })),
                   opening.registry.schemes.contains(scheme.name) {
                    return .link(url)
                }
                return .text
            }
        } catch {
            let error = DBusError.from(error)
            logger.warning("not offering what \(deviceName(received.deviceID)) sent: \(error.name.rawValue): \(error.message)")
            return nil
        }
    }

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
        guard let url = try? SchemeURL(PercentEncoding.fileURL(path: folder)) else { throw DBusError(.failed, "the folder \(folder) makes no valid URL") }
        let request = OpenRequest(url: url, handler: entry.id, caller: Self.engineCaller)
        let opening = self.opening
        let admission = try opening.broker.admit(document: url, entry: entry, request: request, searchPath: opening.searchPath,
                                                 sessionScale: opening.scale.current, splashAvailable: false)
        return try await opening.launch(admission, annotation: nil, caller: Self.engineCaller, method: ContractMethod.openFile, reply: nil,
                                        contentType: type.name)
    }

    /// Where the engine writes what `received`'s device sends: read (its config, the folders
    /// resolved) on a descriptor thread, when called.
    private func receivedPlaces(_ received: ReceivedFromDevice) -> @Sendable () -> ReceivedPlaces {
        let (directories, device, engineDirectory) = (devices.directories, received.deviceID, received.engineDirectory)
        return { @Sendable in ReceivedPlaces.kdeconnect(directories, deviceID: device, engineDirectory: engineDirectory) }
    }

    /// Opens `share` where the engine writes (``ReceivedPlaces/open(_:)``: no symlink followed,
    /// no FIFO waited on, nothing outside those places), then hands it to
    /// ``Opening/openDocument(_:name:fileName:type:options:caller:)`` as `OpenFile` would, its type detected.
    /// `from`: the device's name (the chooser, when asked, says who sent the file).
    private func openReceivedFile(_ share: ReceivedShare, places: @escaping @Sendable () -> ReceivedPlaces, options: OpenOptions,
                                  sender: String, from: String) async throws -> OpenResults {
        let documents = opening.documents
        let (owned, name, type) = try await descriptors.run(for: Self.engineCaller.appID ?? sender) { () throws in
            let owned = UnixFD(owning: try places().open(share).take())
            let (name, type) = try owned.withFileDescriptor { d in try documents.inspect(d, contentType: nil) }
            return (owned, name, type)
        }
        return try await opening.openDocument(owned, name: name, type: type, options: options, caller: Self.engineCaller, receivedFrom: from)
    }

    /// The URL received text is, if it is one (``ReceivedShare/url(inDescriptor:)`` on a
    /// descriptor thread, the text opened where the engine writes).
    private func receivedURL(_ share: ReceivedShare, places: @escaping @Sendable () -> ReceivedPlaces) async throws -> String? {
        try await descriptors.run(for: Self.engineCaller.appID ?? "kdeconnect") { () throws in
            let fd = try places().open(share)
            return ReceivedShare.url(inDescriptor: fd)
        }
    }
}
