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
    /// Whether an owner of the engine's name is the engine.
    let check: EngineCheck

    private let follower: EngineFollower<[String: NearbyDevice]>
    /// The engine's uploads as it reports them to the KDE job tracker (``KDEConnectJobs``).
    public let jobs: KDEConnectJobs
    /// Who is told what devices send.
    private let receivers = Mutex<(nextID: UInt64, list: [UInt64: AsyncStream<ReceivedFromDevice>.Continuation])>((1, [:]))

    public init(connection: Connection, callTimeout: Duration = .seconds(20), startWait: Duration = .seconds(2),
                logger: Logger = Logger(label: "kdeconnect"), check: EngineCheck = EngineCheck()) {
        self.connection = connection
        self.callTimeout = callTimeout
        self.startWait = startWait
        self.logger = logger
        self.check = check
        let follower = EngineFollower(empty: [String: NearbyDevice]()) { NearbyDevice.shareTargets($0.values) }
        self.follower = follower
        self.jobs = KDEConnectJobs(connection: connection, logger: logger, engineOwner: { follower.owner })
    }

    /// Starts following the engine; returns once the first list of devices is known (empty
    /// when no engine runs), or after `startWait` when the engine is slow to answer. Throws only
    /// when the bus refuses the subscriptions.
    public func start() async throws(DBusError) {
        try await follower.start(connection: connection, busName: KDEConnectNames.busName, pathNamespace: KDEConnectNames.daemonPath,
                                 startWait: startWait, logger: logger, label: "KDE Connect", engine: .kdeconnect, check: check,
                                 read: { [self] owner in await readDevices(owner) }, handle: { [self] message in handle(message) })
    }

    /// Stops following: the streams handed out end.
    public func stop() {
        follower.stop()
        jobs.stop()
        let list = receivers.withLock { r in
            defer { r.list = [:] }
            return r.list
        }
        list.values.forEach { $0.finish() }
    }

    /// Whether the engine is on the bus.
    public var isRunning: Bool { follower.owner != nil }

    /// Every device the engine lists as paired and reachable (share plugin on or off).
    public var devices: [NearbyDevice] { Array(follower.snapshot.values) }

    /// The devices that can receive a share now, by name.
    public var shareTargets: [NearbyDevice] { follower.shareTargets }  // kept as the devices change

    /// The share targets now and after every change.
    public func shareTargetChanges() -> AsyncStream<[NearbyDevice]> { follower.shareTargetChanges() }

    /// What devices send, as it arrives.
    public func receivedShares() -> AsyncStream<ReceivedFromDevice> {
        let (stream, continuation) = AsyncStream<ReceivedFromDevice>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = receivers.withLock { r in
            let id = r.nextID
            r.nextID += 1
            r.list[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.receivers.withLock { _ = $0.list.removeValue(forKey: id) } }
        return stream
    }

    // MARK: following

    /// A signal from the engine (its current owner): a received share goes to the receivers;
    /// says whether the list of devices is read again.
    private func handle(_ message: Message) -> Bool {
        guard let member = message.member?.rawValue else { return false }
        if member == KDEConnectNames.shareReceived.rawValue, message.interface == KDEConnectNames.shareInterface {
            guard let id = KDEConnectNames.deviceID(in: message.path), DeviceID.isValid(id),
                  case .string(let arg)? = message.body.first, let share = ReceivedShare(engineArgument: arg) else {
                logger.warning("ignored a shareReceived signal that names no local file")
                return false
            }
            let list = receivers.withLock { Array($0.list.values) }
            let directory = follower.process?.workingDirectory
            for r in list { r.yield(ReceivedFromDevice(deviceID: id, share: share, engineDirectory: directory)) }
            return false
        }
        return KDEConnectNames.listSignals.contains(member)
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
                                         canReceive: loaded.contains(KDEConnectNames.sharePlugin),
                                         kind: DeviceKind(engineType: all["type"]?.unwrapped.string ?? ""))
            } catch {
                // Gone between the list and now (or its object not exported yet): its signals bring it back.
                logger.debug("device \(id) could not be read: \(error)")
            }
        }
        return found
    }

    // MARK: sending

    /// Hands `payload` to the engine for `deviceID`: its call has left when this returns (from a
    /// handler on the loop thread) or is queued to leave. ``ServiceFailure/Kind/noTarget``, thrown
    /// here, when no engine runs or the device cannot receive now; awaited through the result,
    /// ``ServiceFailure/Kind/launchFailed`` (with the reason) when the engine stops, the device
    /// goes, or the engine refuses or does not answer within the call timeout, else the receipt
    /// once the engine took it (delivery is not confirmed).
    public func start(_ payload: DevicePayload, to deviceID: String) throws(ServiceFailure) -> DeviceSendStarted {
        let (owner, devices) = follower.ownerAndSnapshot
        guard let owner, let destination = destination(owner) else {
            throw ServiceFailure(.noTarget, "KDE Connect is not running (no org.kde.kdeconnect on the session bus): there are no devices to send to")
        }
        guard let device = devices[deviceID], device.isShareTarget, let path = sharePath(deviceID, owner: owner) else {
            throw ServiceFailure(.noTarget, "no paired, reachable device with the id \(DeviceName.sanitized(deviceID)) can receive shares now")
        }
        // The one argument written straight into the call (``Connection/call(destination:path:interface:member:timeout:body:)``).
        let (member, argument): (MemberName, EngineArgument)
        switch payload {
        case .files(let paths):
            guard !paths.isEmpty, paths.allSatisfy({ $0.hasPrefix("/") && !$0.utf8.contains(0) }) else {
                throw ServiceFailure(.launchFailed, "only absolute paths of local files can be sent")
            }
            let urls = paths.map(PercentEncoding.fileURL(path:))
            (member, argument) = urls.count == 1 ? (Self.shareURL, .string(urls[0])) : (Self.shareURLs, .strings(urls))
        case .text(let text):
            guard !text.utf8.contains(0) else { throw ServiceFailure(.launchFailed, "the text contains a NUL character") }
            (member, argument) = (Self.shareText, .string(text))
        case .url(let url):
            guard !url.utf8.contains(0) else { throw ServiceFailure(.launchFailed, "the URL contains a NUL character") }
            (member, argument) = (Self.shareURL, .string(url))
        }
        // Sent now; its answer awaited through the receipt (``DeviceSendStarted``).
        let call: StartedCall
        do {
            call = try connection.start(destination: destination, path: path, interface: KDEConnectNames.shareInterface,
                                        member: member, timeout: callTimeout) { body throws(DBusError) in
                switch argument {
                case .string(let s): try body.append(s)
                case .strings(let list): try body.append(.strings(list))
                }
            }
        } catch {
            throw Self.failure(error, device: device)
        }
        let receipt = DeviceSendReceipt(device: device.id, deviceName: device.name, engine: engineName)
        return DeviceSendStarted(answer: { () async throws(ServiceFailure) -> DeviceSendReceipt in
            if let error = await call.outcome() { throw Self.failure(error, device: device) }
            return receipt
        }, onTaken: { taken in call.whenEnded { error in if error == nil { taken(receipt) } } })
    }

    /// The engine's bus name and its devices' share paths as last checked: a send checks the name
    /// and a device's path once (its first send to that engine), not at each call.
    private let checkedRoutes = Mutex<(owner: String, destination: BusName, paths: [String: ObjectPath])?>(nil)

    /// `owner` (the engine's unique name) checked as a bus name; nil when it is not one.
    private func destination(_ owner: String) -> BusName? {
        if let kept = checkedRoutes.withLock({ $0?.owner == owner ? $0?.destination : nil }) { return kept }
        guard let checked = try? BusName(owner) else { return nil }
        checkedRoutes.withLock { $0 = (owner, checked, [:]) }
        return checked
    }

    /// The share plugin's path for `deviceID` (a device the engine `owner` lists: the paths kept
    /// are as many as its devices); nil for an id that cannot be one.
    private func sharePath(_ deviceID: String, owner: String) -> ObjectPath? {
        if let kept = checkedRoutes.withLock({ $0?.owner == owner ? $0?.paths[deviceID] : nil }) { return kept }
        guard DeviceID.isValid(deviceID), let path = KDEConnectNames.devicePath(deviceID + "/share") else { return nil }
        checkedRoutes.withLock { if $0?.owner == owner { $0?.paths[deviceID] = path } }
        return path
    }

    /// Hands `payload` to the engine (``start(_:to:)``) and returns once it took it.
    public func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt {
        try await start(payload, to: deviceID).taken()
    }

    /// The share plugin's methods.
    private static let (shareURL, shareURLs, shareText): (MemberName, MemberName, MemberName) = ("shareUrl", "shareUrls", "shareText")

    /// A send's one argument: `s` or `as`.
    private enum EngineArgument { case string(String), strings([String]) }

    /// The reason a call to the engine failed, for the Response's `error-message`.
    static func failure(_ error: DBusError, device: NearbyDevice) -> ServiceFailure {
        EngineFollower<[String: NearbyDevice]>.failure(error, label: "KDE Connect", device: device, gone: "KDE Connect no longer has its share plugin")
    }
}
