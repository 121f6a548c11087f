import DBus
import Logging
import SchemeBridgeCore
import Synchronization

/// A typed client of the KDE Connect engine (`kdeconnectd`, `org.kde.kdeconnect` on the session
/// bus). It follows the engine live, from its signals and the bus's `NameOwnerChanged` (no
/// polling): the engine coming and going, devices added, removed, paired, reachable, renamed,
/// their plugins changing. It sends files, text and URLs through a device's share plugin and
/// reports what devices send (`shareReceived`). Signals are taken only from the engine's current
/// unique name: another client sending look-alike signals to us is ignored.
public final class KDEConnectEngine: DeviceSending, Sendable {
    /// `kdeconnect`: the engine's name in results.
    public let engineName = "kdeconnect"
    /// The session bus connection the engine is on.
    public let connection: Connection
    let logger: Logger
    /// How long one call to the engine may take before it counts as not answering.
    let callTimeout: Duration
    /// How long ``start()`` waits for the first list of devices.
    let startWait: Duration

    struct State {
        /// The engine's unique name while it runs.
        var owner: String?
        var devices: [String: NearbyDevice] = [:]
        var watchers: [UInt64: AsyncStream<[NearbyDevice]>.Continuation] = [:]
        var receivers: [UInt64: AsyncStream<ReceivedFromDevice>.Continuation] = [:]
        var nextID: UInt64 = 1
        var tasks: [Task<Void, Never>] = []
    }
    private let state = Mutex(State())
    /// Refresh requests; newest only, so a burst of signals is one read of the list.
    private let refreshes = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    public init(connection: Connection, callTimeout: Duration = .seconds(20), startWait: Duration = .seconds(2),
                logger: Logger = Logger(label: "kdeconnect")) {
        self.connection = connection
        self.callTimeout = callTimeout
        self.startWait = startWait
        self.logger = logger
    }

    /// Starts following the engine; returns once the first list of devices is known (empty
    /// when no engine runs), or after `startWait` when the engine is slow to answer. Throws only
    /// when the bus refuses the subscriptions.
    public func start() async throws(DBusError) {
        let owners = try await connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: KDEConnectNames.busName.rawValue))
        let engineSignals = try await connection.signals(matching: MatchRule(
            sender: KDEConnectNames.busName, pathNamespace: KDEConnectNames.daemonPath))
        let owner = try? await BusDriver(connection).nameOwner(KDEConnectNames.busName.rawValue)
        state.withLock { $0.owner = owner }
        // The first list, waited for at most `startWait`: an engine that does not answer must not
        // hold up the service's start (its list comes when it answers). Refreshes asked for
        // meanwhile run after it, so an older list never replaces a newer one.
        let first = Task { [self] in await refreshNow() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first.value }
            group.addTask { [startWait] in try? await Task.sleep(for: startWait) }
            await group.next()
            group.cancelAll()
        }
        let followers = [
            Task { [self] in
                for await change in owners.compactMap(NameOwnerChanged.init(message:)) where change.name == KDEConnectNames.busName.rawValue {
                    engineOwnerChanged(change.newOwner.isEmpty ? nil : change.newOwner)
                }
            },
            Task { [self] in
                for await message in engineSignals { handle(message) }
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
        let (tasks, watchers, receivers) = state.withLock { s in
            defer { s.tasks = []; s.watchers = [:]; s.receivers = [:] }
            return (s.tasks, s.watchers, s.receivers)
        }
        tasks.forEach { $0.cancel() }
        refreshes.continuation.finish()
        watchers.values.forEach { $0.finish() }
        receivers.values.forEach { $0.finish() }
    }

    /// Whether the engine is on the bus.
    public var isRunning: Bool { state.withLock { $0.owner != nil } }

    /// Every device the engine lists as paired and reachable (share plugin on or off).
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

    /// What devices send, as it arrives.
    public func receivedShares() -> AsyncStream<ReceivedFromDevice> {
        let (stream, continuation) = AsyncStream<ReceivedFromDevice>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.receivers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.receivers.removeValue(forKey: id) } }
        return stream
    }

    // MARK: following

    private func engineOwnerChanged(_ owner: String?) {
        state.withLock { $0.owner = owner }
        logger.info(owner == nil ? "KDE Connect left the bus: no device targets" : "KDE Connect is on the bus as \(owner ?? "")")
        refreshes.continuation.yield()
    }

    private func handle(_ message: Message) {
        guard let owner = state.withLock({ $0.owner }), message.sender == owner else { return }
        guard let member = message.member?.rawValue else { return }
        if member == KDEConnectNames.shareReceived.rawValue, message.interface == KDEConnectNames.shareInterface {
            guard let id = KDEConnectNames.deviceID(in: message.path), DeviceID.isValid(id),
                  case .string(let arg)? = message.body.first, let share = ReceivedShare(engineArgument: arg) else {
                logger.warning("ignored a shareReceived signal that names no local file")
                return
            }
            let receivers = state.withLock { Array($0.receivers.values) }
            for r in receivers { r.yield(ReceivedFromDevice(deviceID: id, share: share)) }
        } else if KDEConnectNames.listSignals.contains(member) {
            refreshes.continuation.yield()
        }
    }

    /// Reads the list of paired, reachable devices again and tells the watchers when it changed.
    private func refreshNow() async {
        var found: [String: NearbyDevice] = [:]
        if let owner = state.withLock({ $0.owner }) {
            found = await readDevices(owner)
        }
        let (changed, watchers, targets) = state.withLock { s in
            let changed = s.devices != found
            s.devices = found
            return (changed, Array(s.watchers.values), NearbyDevice.shareTargets(found.values))
        }
        if changed {
            logger.info("devices that can receive: \(targets.map { "\($0.name) (\($0.id))" }.joined(separator: ", "))")
            for w in watchers { w.yield(targets) }
        }
    }

    private func readDevices(_ owner: String) async -> [String: NearbyDevice] {
        let destination = try? BusName(owner)
        let ids: [String]
        do {
            let reply = try await connection.call(destination: destination, path: KDEConnectNames.daemonPath, interface: KDEConnectNames.daemonInterface,
                                                  member: "devices", [.boolean(true), .boolean(true)], timeout: .seconds(5))
            ids = (reply.first?.arrayElements ?? []).compactMap(\.string)
        } catch {
            logger.notice("KDE Connect did not list its devices: \(error)")
            return [:]
        }
        var found: [String: NearbyDevice] = [:]
        for id in ids.prefix(KDEConnectNames.maximumDevices) where DeviceID.isValid(id) {
            guard let path = KDEConnectNames.devicePath(id) else { continue }
            do {
                let props = try await connection.call(destination: destination, path: path, interface: .properties, member: "GetAll",
                                                      [.string(KDEConnectNames.deviceInterface.rawValue)], timeout: .seconds(5))
                let all = props.first?.stringDictionary ?? [:]
                let plugins = try await connection.call(destination: destination, path: path, interface: KDEConnectNames.deviceInterface,
                                                        member: "loadedPlugins", timeout: .seconds(5))
                let loaded = (plugins.first?.arrayElements ?? []).compactMap(\.string)
                found[id] = NearbyDevice(id: id, name: all["name"]?.unwrapped.string ?? "",
                                         reachable: all["isReachable"]?.unwrapped.bool ?? false,
                                         paired: all["isTrusted"]?.unwrapped.bool ?? all["isPaired"]?.unwrapped.bool ?? false,
                                         canReceive: loaded.contains(KDEConnectNames.sharePlugin))
            } catch {
                // Gone between the list and now (or its object not exported yet): its signals bring it back.
                logger.debug("device \(id) could not be read: \(error)")
            }
        }
        return found
    }

    // MARK: sending

    /// Hands `payload` to the engine for `deviceID`. ``ServiceFailure/Kind/noTarget`` when no
    /// engine runs or the device cannot receive now; ``ServiceFailure/Kind/launchFailed`` (with the
    /// reason) when the engine stops, the device goes, or the engine refuses or does not answer
    /// within the call timeout. Returns when the engine took it; delivery is not confirmed.
    public func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt {
        let (owner, device) = state.withLock { ($0.owner, $0.devices[deviceID]) }
        guard let owner, let destination = try? BusName(owner) else {
            throw ServiceFailure(.noTarget, "KDE Connect is not running (no org.kde.kdeconnect on the session bus): there are no devices to send to")
        }
        guard DeviceID.isValid(deviceID), let device, device.isShareTarget, let path = KDEConnectNames.devicePath(deviceID + "/share") else {
            throw ServiceFailure(.noTarget, "no paired, reachable device with the id \(DeviceName.sanitized(deviceID)) can receive shares now")
        }
        let (member, arguments): (MemberName, [DBusValue])
        switch payload {
        case .files(let paths):
            guard !paths.isEmpty, paths.allSatisfy({ $0.hasPrefix("/") && !$0.utf8.contains(0) }) else {
                throw ServiceFailure(.launchFailed, "only absolute paths of local files can be sent")
            }
            let urls = paths.map(FileURL.from(path:))
            (member, arguments) = urls.count == 1 ? ("shareUrl", [.string(urls[0])]) : ("shareUrls", [.strings(urls)])
        case .text(let text):
            guard !text.utf8.contains(0) else { throw ServiceFailure(.launchFailed, "the text contains a NUL character") }
            (member, arguments) = ("shareText", [.string(text)])
        case .url(let url):
            guard !url.utf8.contains(0) else { throw ServiceFailure(.launchFailed, "the URL contains a NUL character") }
            (member, arguments) = ("shareUrl", [.string(url)])
        }
        do {
            _ = try await connection.call(destination: destination, path: path, interface: KDEConnectNames.shareInterface,
                                          member: member, arguments, timeout: callTimeout)
        } catch {
            throw Self.failure(error, device: device)
        }
        return DeviceSendReceipt(device: device.id, deviceName: device.name, engine: engineName)
    }

    /// The reason a call to the engine failed, for the Response's `error-message`.
    static func failure(_ error: DBusError, device: NearbyDevice) -> ServiceFailure {
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            return ServiceFailure(.launchFailed, "KDE Connect stopped before it took the share for \(device.name)")
        case .noReply, .disconnected:
            return ServiceFailure(.launchFailed, "KDE Connect did not take the share for \(device.name) (it stopped or does not answer): \(error.message)")
        case .unknownObject, .unknownMethod, .unknownInterface:
            return ServiceFailure(.launchFailed, "\(device.name) went away (KDE Connect no longer has its share plugin)")
        default:
            return ServiceFailure(.launchFailed, "KDE Connect refused the share for \(device.name): \(error.name.rawValue): \(error.message)")
        }
    }
}
