/// What the engine took: the device (id and shown name) and the engine's name (`kdeconnect`).
/// No engine confirms delivery: this says the engine accepted the share, no more.
public struct DeviceSendReceipt: Sendable, Equatable {
    public let device: String
    public let deviceName: String
    public let engine: String

    public init(device: String, deviceName: String, engine: String) {
        self.device = device
        self.deviceName = deviceName
        self.engine = engine
    }
}

/// The one function the share path calls to send to a device: the KDE Connect engine is one,
/// GSConnect another, and the preferred engine picks the one in use (`SchemeBridgeDevices`).
public protocol DeviceSending: Sendable {
    /// The engine's name, as the Response's `engine` result.
    var engineName: String { get }
    /// The devices that can receive now (paired, reachable, share plugin on), in sheet order.
    var shareTargets: [NearbyDevice] { get }
    /// Hands `payload` to the engine for `deviceID`; returns once the engine took it.
    func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt
    /// Hands `payload` to the engine for `deviceID` without waiting for its answer, where the
    /// engine can be called at once (KDE Connect: its call has left when this returns); the
    /// answer is awaited through what this returns. What can be told without the engine (no such
    /// device, a path that cannot be sent) is thrown here. By default ``send(_:to:)``, run when
    /// the answer is awaited.
    func start(_ payload: DevicePayload, to deviceID: String) throws(ServiceFailure) -> DeviceSendStarted
}

extension DeviceSending {
    public func start(_ payload: DevicePayload, to deviceID: String) throws(ServiceFailure) -> DeviceSendStarted {
        DeviceSendStarted { () async throws(ServiceFailure) -> DeviceSendReceipt in try await send(payload, to: deviceID) }
    }
}

/// A payload handed to an engine (``DeviceSending/start(_:to:)``), its answer still to come.
public struct DeviceSendStarted: Sendable {
    @usableFromInline let answer: @Sendable () async throws(ServiceFailure) -> DeviceSendReceipt
    /// Given what to run with the receipt, runs it as soon as the engine took the payload (KDE
    /// Connect: in the dispatch of its reply; not when it refused); nil when the engine does not tell at once.
    @usableFromInline let onTaken: (@Sendable (@escaping @Sendable (DeviceSendReceipt) -> Void) -> Void)?

    /// `answer` returns the receipt once the engine took the payload, or throws why not;
    /// `onTaken`, when given, runs what it is given as soon as the engine took it.
    public init(answer: @escaping @Sendable () async throws(ServiceFailure) -> DeviceSendReceipt,
                onTaken: (@Sendable (@escaping @Sendable (DeviceSendReceipt) -> Void) -> Void)? = nil) {
        (self.answer, self.onTaken) = (answer, onTaken)
    }

    /// Returns once the engine took the payload; throws what it said instead.
    @inlinable
    public func taken() async throws(ServiceFailure) -> DeviceSendReceipt { try await answer() }
}

/// The engine's reports of its own uploads (KDE Connect's, through the KDE job tracker): where a
/// share of files is followed to its end.
public protocol DeviceTransferJobs: Sendable {
    /// What had happened before a share was handed to the engine.
    associatedtype Mark: Sendable
    /// Taken just before the engine is called.
    func mark() -> Mark
    /// Whether the engine's job reports come here now.
    var isServing: Bool { get }
    /// Follows the job made since `mark` for files named `names` to `device` until it ends or
    /// `timeout` runs out; its progress (job view, percent) to `progress`.
    func followTransfer(since mark: Mark, names: Set<String>, device: String, timeout: Duration,
                        progress: @escaping @Sendable (UInt64, UInt32) -> Void) async -> (DeviceDelivery, String?)
    /// Asks the engine to cancel the job of view `view`.
    func cancel(_ view: UInt64)
}
