import DBus
import Logging
import SchemeBridgeCore

/// A typed client of GSConnect (the KDE Connect protocol inside GNOME Shell: its service owns
/// `org.gnome.Shell.Extensions.GSConnect` on the session bus). It follows the service live, from
/// the bus's `NameOwnerChanged`, the ObjectManager's `InterfacesAdded`/`InterfacesRemoved`, each
/// device's `PropertiesChanged` and its actions' `org.gtk.Actions.Changed` (no polling), and
/// sends files, text and URLs by activating the device's share actions (`shareFile`,
/// `shareText`, `shareUri`). Signals are taken only from the service's current unique name.
///
/// GSConnect says nothing on the bus about what devices send (it shows a notification), so
/// this engine reports no received shares; and its actions return nothing, so "took it" means
/// GSConnect accepted the activation, no more.
public final class GSConnectEngine: DeviceSending, Sendable {
    /// `gsconnect`: the engine's name in results.
    public let engineName = "gsconnect"
    /// The session bus connection the service is on.
    public let connection: Connection
    let logger: Logger
    /// How long one call to the service may take before it counts as not answering.
    let callTimeout: Duration
    /// How long ``start()`` waits for the first list of devices.
    let startWait: Duration
    /// Whether an owner of the engine's name is the engine.
    let check: EngineCheck

    /// One read of the service: its devices, and the share actions enabled per device.
    struct Snapshot: Sendable, Equatable {
        var devices: [String: NearbyDevice] = [:]
        var actions: [String: Set<String>] = [:]
    }
    private let follower = EngineFollower(empty: Snapshot()) { NearbyDevice.shareTargets($0.devices.values) }

    public init(connection: Connection, callTimeout: Duration = .seconds(20), startWait: Duration = .seconds(2),
                logger: Logger = Logger(label: "gsconnect"), check: EngineCheck = EngineCheck()) {
        self.connection = connection
        self.callTimeout = callTimeout
        self.startWait = startWait
        self.logger = logger
        self.check = check
    }

    /// Starts following the service; returns once the first list of devices is known (empty
    /// when GSConnect is not running), or after `startWait` when it is slow to answer. Throws
    /// only when the bus refuses the subscriptions.
    public func start() async throws(DBusError) {
        try await follower.start(connection: connection, busName: GSConnectNames.busName, pathNamespace: GSConnectNames.servicePath,
                                 startWait: startWait, logger: logger, label: "GSConnect", engine: .gsconnect, check: check,
                                 read: { [self] owner in await readDevices(owner) },
                                 handle: { message in message.member.map { GSConnectNames.listSignals.contains($0.rawValue) } ?? false })
    }

    /// Stops following: the streams handed out end.
    public func stop() { follower.stop() }

    /// Whether GSConnect is on the bus.
    public var isRunning: Bool { follower.owner != nil }

    /// Every device GSConnect knows (connected or not, paired or not).
    public var devices: [NearbyDevice] { Array(follower.snapshot.devices.values) }

    /// The devices that can receive a share now, by name.
    public var shareTargets: [NearbyDevice] { follower.shareTargets }  // kept as the devices change

    /// The share targets now and after every change.
    public func shareTargetChanges() -> AsyncStream<[NearbyDevice]> { follower.shareTargetChanges() }

    // MARK: reading

    private func readDevices(_ owner: String) async -> Snapshot {
        let destination = try? BusName(owner)
        let objects: [DictEntry]
        do {
            let reply = try await connection.call(destination: destination, path: GSConnectNames.servicePath, interface: GSConnectNames.objectManager,
                                                  member: "GetManagedObjects", timeout: .seconds(5))
            guard case .dictionary(.objectPath, _, let entries)? = reply.first else { return Snapshot() }
            objects = entries
        } catch {
            logger.notice("GSConnect did not list its devices: \(error)")
            return Snapshot()
        }
        var found = Snapshot()
        for entry in objects.prefix(GSConnectNames.maximumDevices) {
            guard let path = entry.key.string, let id = GSConnectNames.deviceID(in: path), let objectPath = try? ObjectPath(path),
                  let props = entry.value.stringDictionary?[GSConnectNames.deviceInterface.rawValue]?.stringDictionary else { continue }
            let enabled = await enabledShareActions(destination, objectPath)
            found.actions[id] = enabled
            found.devices[id] = NearbyDevice(id: id, name: props["Name"]?.unwrapped.string ?? "",
                                             reachable: props["Connected"]?.unwrapped.bool ?? false,
                                             paired: props["Paired"]?.unwrapped.bool ?? false,
                                             canReceive: enabled.contains(GSConnectNames.shareFile),
                                             kind: DeviceKind(engineType: props["Type"]?.unwrapped.string ?? ""))
        }
        return found
    }

    /// The device's share actions that are enabled now (none when it cannot be asked).
    private func enabledShareActions(_ destination: BusName?, _ path: ObjectPath) async -> Set<String> {
        do {
            let reply = try await connection.call(destination: destination, path: path, interface: GSConnectNames.actionsInterface,
                                                  member: "DescribeAll", timeout: .seconds(5))
            var enabled: Set<String> = []
            for (name, description) in reply.first?.stringDictionary ?? [:] where GSConnectNames.shareActions.contains(name) {
                if case .structure(let fields) = description, fields.first?.bool == true { enabled.insert(name) }
            }
            return enabled
        } catch {
            // Gone between the list and now: its signals bring it back.
            logger.debug("GSConnect device \(path) could not be read: \(error)")
            return []
        }
    }

    // MARK: sending

    /// Hands `payload` to GSConnect for `deviceID` by activating the device's share action (one
    /// `shareFile` per file). ``ServiceFailure/Kind/noTarget`` when GSConnect is not running or
    /// the device cannot receive now; ``ServiceFailure/Kind/launchFailed`` (with the reason) when the
    /// service stops, the device goes, or the service refuses or does not answer. Returns when
    /// GSConnect accepted the activation: it sends in the background and confirms nothing.
    public func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt {
        let (owner, snapshot) = (follower.owner, follower.snapshot)
        let (device, enabled) = (snapshot.devices[deviceID], snapshot.actions[deviceID] ?? [])
        guard let owner, let destination = try? BusName(owner) else {
            throw ServiceFailure(.noTarget, "GSConnect is not running (no \(GSConnectNames.busName.rawValue) on the session bus): there are no devices to send to")
        }
        guard let device, device.isShareTarget, let path = GSConnectNames.devicePath(deviceID) else {
            throw ServiceFailure(.noTarget, "no paired, connected GSConnect device with the id \(DeviceName.sanitized(deviceID)) can receive shares now")
        }
        let activations: [(String, DBusValue)]
        switch payload {
        case .files(let paths):
            guard !paths.isEmpty, paths.allSatisfy({ $0.hasPrefix("/") && !$0.utf8.contains(0) }) else {
                throw ServiceFailure(.launchFailed, "only absolute paths of local files can be sent")
            }
            activations = paths.map { (GSConnectNames.shareFile, .structure([.string(PercentEncoding.fileURL(path: $0)), .boolean(false)])) }
        case .text(let text):
            guard !text.utf8.contains(0) else { throw ServiceFailure(.launchFailed, "the text contains a NUL character") }
            activations = [(GSConnectNames.shareText, .string(text))]
        case .url(let url):
            guard !url.utf8.contains(0) else { throw ServiceFailure(.launchFailed, "the URL contains a NUL character") }
            activations = [(GSConnectNames.shareUri, .string(url))]
        }
        if let action = activations.first?.0, !enabled.contains(action) {
            throw ServiceFailure(.noTarget, "\(device.name) cannot take \(action) now (GSConnect has the action disabled)")
        }
        for (action, parameter) in activations {
            do {
                _ = try await connection.call(destination: destination, path: path, interface: GSConnectNames.actionsInterface, member: "Activate",
                                              [.string(action), .array(element: .variant, [.variant(parameter)]), .vardict([:])], timeout: callTimeout)
            } catch {
                throw Self.failure(error, device: device)
            }
        }
        return DeviceSendReceipt(device: device.id, deviceName: device.name, engine: engineName)
    }

    /// The reason a call to GSConnect failed, for the Response's `error-message`.
    static func failure(_ error: DBusError, device: NearbyDevice) -> ServiceFailure {
        EngineFollower<Snapshot>.failure(error, label: "GSConnect", device: device, gone: "GSConnect no longer exports it")
    }
}
