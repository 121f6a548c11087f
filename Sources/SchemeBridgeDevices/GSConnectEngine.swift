import DBus
import Logging
import SchemeBridgeCore
import Synchronization

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

    struct State {
        /// The service's unique name while it runs.
        var owner: String?
        var devices: [String: NearbyDevice] = [:]
        /// The share actions enabled per device.
        var actions: [String: Set<String>] = [:]
        var watchers: [UInt64: AsyncStream<[NearbyDevice]>.Continuation] = [:]
        var nextID: UInt64 = 1
        var tasks: [Task<Void, Never>] = []
    }
    private let state = Mutex(State())
    /// Refresh requests; newest only, so a burst of signals is one read of the list.
    private let refreshes = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    public init(connection: Connection, callTimeout: Duration = .seconds(20), startWait: Duration = .seconds(2),
                logger: Logger = Logger(label: "gsconnect")) {
        self.connection = connection
        self.callTimeout = callTimeout
        self.startWait = startWait
        self.logger = logger
    }

    /// Starts following the service; returns once the first list of devices is known (empty
    /// when GSConnect is not running), or after `startWait` when it is slow to answer. Throws
    /// only when the bus refuses the subscriptions.
    public func start() async throws(DBusError) {
        let name = GSConnectNames.busName
        let owners = try await connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name.rawValue))
        let serviceSignals = try await connection.signals(matching: MatchRule(sender: name, pathNamespace: GSConnectNames.servicePath))
        let owner = try? await BusDriver(connection).nameOwner(name.rawValue)
        state.withLock { $0.owner = owner }
        let first = Task { [self] in await refreshNow() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first.value }
            group.addTask { [startWait] in try? await Task.sleep(for: startWait) }
            await group.next()
            group.cancelAll()
        }
        let followers = [
            Task { [self] in
                for await change in owners.compactMap(NameOwnerChanged.init(message:)) where change.name == name.rawValue {
                    ownerChanged(change.newOwner.isEmpty ? nil : change.newOwner)
                }
            },
            Task { [self] in
                for await message in serviceSignals { handle(message) }
            },
            Task { [self] in
                await first.value
                for await _ in refreshes.stream { await refreshNow() }
            },
        ]
        state.withLock { $0.tasks += followers }
    }

    /// Stops following: the streams handed out end.
    public func stop() {
        let (tasks, watchers) = state.withLock { s in
            defer { s.tasks = []; s.watchers = [:] }
            return (s.tasks, s.watchers)
        }
        tasks.forEach { $0.cancel() }
        refreshes.continuation.finish()
        watchers.values.forEach { $0.finish() }
    }

    /// Whether GSConnect is on the bus.
    public var isRunning: Bool { state.withLock { $0.owner != nil } }

    /// Every device GSConnect knows (connected or not, paired or not).
    public var devices: [NearbyDevice] { state.withLock { Array($0.devices.values) } }

    /// The devices that can receive a share now, by name.
    public var shareTargets: [NearbyDevice] { NearbyDevice.shareTargets(devices) }

    /// The share targets now and after every change.
    public func shareTargetChanges() -> AsyncStream<[NearbyDevice]> {
        let (stream, continuation) = AsyncStream<[NearbyDevice]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.watchers[id] = continuation
            continuation.yield(NearbyDevice.shareTargets(s.devices.values))
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) } }
        return stream
    }

    // MARK: following

    private func ownerChanged(_ owner: String?) {
        state.withLock { $0.owner = owner }
        logger.info(owner == nil ? "GSConnect left the bus: no GSConnect device targets" : "GSConnect is on the bus as \(owner ?? "")")
        refreshes.continuation.yield()
    }

    private func handle(_ message: Message) {
        guard let owner = state.withLock({ $0.owner }), message.sender == owner,
              let member = message.member?.rawValue, GSConnectNames.listSignals.contains(member) else { return }
        refreshes.continuation.yield()
    }

    /// Reads the devices again and tells the watchers when the share targets changed.
    private func refreshNow() async {
        var found: ([String: NearbyDevice], [String: Set<String>]) = ([:], [:])
        if let owner = state.withLock({ $0.owner }) {
            found = await readDevices(owner)
        }
        let (changed, watchers, targets) = state.withLock { s in
            let changed = s.devices != found.0
            s.devices = found.0
            s.actions = found.1
            return (changed, Array(s.watchers.values), NearbyDevice.shareTargets(found.0.values))
        }
        if changed {
            logger.info("GSConnect devices that can receive: \(targets.map { "\($0.name) (\($0.id))" }.joined(separator: ", "))")
            for w in watchers { w.yield(targets) }
        }
    }

    private func readDevices(_ owner: String) async -> ([String: NearbyDevice], [String: Set<String>]) {
        let destination = try? BusName(owner)
        let objects: [DictEntry]
        do {
            let reply = try await connection.call(destination: destination, path: GSConnectNames.servicePath, interface: GSConnectNames.objectManager,
                                                  member: "GetManagedObjects", timeout: .seconds(5))
            guard case .dictionary(.objectPath, _, let entries)? = reply.first else { return ([:], [:]) }
            objects = entries
        } catch {
            logger.notice("GSConnect did not list its devices: \(error)")
            return ([:], [:])
        }
        var devices: [String: NearbyDevice] = [:]
        var actions: [String: Set<String>] = [:]
        for entry in objects.prefix(GSConnectNames.maximumDevices) {
            guard let path = entry.key.string, let id = GSConnectNames.deviceID(in: path), let objectPath = try? ObjectPath(path),
                  let props = entry.value.stringDictionary?[GSConnectNames.deviceInterface.rawValue]?.stringDictionary else { continue }
            let enabled = await enabledShareActions(destination, objectPath)
            actions[id] = enabled
            devices[id] = NearbyDevice(id: id, name: props["Name"]?.unwrapped.string ?? "",
                                       reachable: props["Connected"]?.unwrapped.bool ?? false,
                                       paired: props["Paired"]?.unwrapped.bool ?? false,
                                       canReceive: enabled.contains(GSConnectNames.shareFile))
        }
        return (devices, actions)
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
    /// `shareFile` per file). ``DeviceShareError/Kind/noTarget`` when GSConnect is not running or
    /// the device cannot receive now; ``DeviceShareError/Kind/failed`` (with the reason) when the
    /// service stops, the device goes, or the service refuses or does not answer. Returns when
    /// GSConnect accepted the activation: it sends in the background and confirms nothing.
    public func send(_ payload: DevicePayload, to deviceID: String) async throws(DeviceShareError) -> DeviceSendReceipt {
        let (owner, device, enabled) = state.withLock { ($0.owner, $0.devices[deviceID], $0.actions[deviceID] ?? []) }
        guard let owner, let destination = try? BusName(owner) else {
            throw DeviceShareError(.noTarget, "GSConnect is not running (no \(GSConnectNames.busName.rawValue) on the session bus): there are no devices to send to")
        }
        guard let device, device.isShareTarget, let path = GSConnectNames.devicePath(deviceID) else {
            throw DeviceShareError(.noTarget, "no paired, connected GSConnect device with the id \(DeviceName.sanitized(deviceID)) can receive shares now")
        }
        let activations: [(String, DBusValue)]
        switch payload {
        case .files(let paths):
            guard !paths.isEmpty, paths.allSatisfy({ $0.hasPrefix("/") && !$0.utf8.contains(0) }) else {
                throw DeviceShareError(.failed, "only absolute paths of local files can be sent")
            }
            activations = paths.map { (GSConnectNames.shareFile, .structure([.string(FileURL.from(path: $0)), .boolean(false)])) }
        case .text(let text):
            guard !text.utf8.contains(0) else { throw DeviceShareError(.failed, "the text contains a NUL character") }
            activations = [(GSConnectNames.shareText, .string(text))]
        case .url(let url):
            guard !url.utf8.contains(0) else { throw DeviceShareError(.failed, "the URL contains a NUL character") }
            activations = [(GSConnectNames.shareUri, .string(url))]
        }
        if let action = activations.first?.0, !enabled.contains(action) {
            throw DeviceShareError(.noTarget, "\(device.name) cannot take \(action) now (GSConnect has the action disabled)")
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
    static func failure(_ error: DBusError, device: NearbyDevice) -> DeviceShareError {
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            return DeviceShareError(.failed, "GSConnect stopped before it took the share for \(device.name)")
        case .noReply, .disconnected:
            return DeviceShareError(.failed, "GSConnect did not take the share for \(device.name) (it stopped or does not answer): \(error.message)")
        case .unknownObject, .unknownMethod, .unknownInterface:
            return DeviceShareError(.failed, "\(device.name) went away (GSConnect no longer exports it)")
        default:
            return DeviceShareError(.failed, "GSConnect refused the share for \(device.name): \(error.name.rawValue): \(error.message)")
        }
    }
}
