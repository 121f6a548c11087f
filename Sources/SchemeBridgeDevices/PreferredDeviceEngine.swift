/// The engine the share path sends through: KDE Connect when `org.kde.kdeconnect` is on the
/// bus, GSConnect when only `org.gnome.Shell.Extensions.GSConnect` is. KDE Connect is preferred
/// when both are: its API answers for what it took, reports what devices send, and is the one
/// tested against two real engines; the two normally do not run together (both take the
/// protocol's port 1716). Devices are never merged across engines: the targets are the chosen
/// engine's alone, and so is the engine a share goes to.
public final class PreferredDeviceEngine: DeviceSending, Sendable {
    public let kdeconnect: KDEConnectEngine
    public let gsconnect: GSConnectEngine

    public init(kdeconnect: KDEConnectEngine, gsconnect: GSConnectEngine) {
        self.kdeconnect = kdeconnect
        self.gsconnect = gsconnect
    }

    /// The engine in use now: KDE Connect unless only GSConnect runs.
    public var current: any DeviceSending {
        !kdeconnect.isRunning && gsconnect.isRunning ? gsconnect : kdeconnect
    }

    /// The name of the engine in use now (`kdeconnect` or `gsconnect`).
    public var engineName: String { current.engineName }

    /// The devices of the engine in use that can receive now, by name.
    public var shareTargets: [NearbyDevice] { current.shareTargets }

    /// Sends through the engine in use; with neither running, ``ServiceFailure/Kind/noTarget``
    /// naming both.
    public func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt {
        try await start(payload, to: deviceID).taken()
    }

    /// Starts the send through the engine in use (``DeviceSending/start(_:to:)``); with neither
    /// running, ``ServiceFailure/Kind/noTarget`` naming both.
    public func start(_ payload: DevicePayload, to deviceID: String) throws(ServiceFailure) -> DeviceSendStarted {
        if kdeconnect.isRunning { return try kdeconnect.start(payload, to: deviceID) }  // the engine `current` picks then
        guard gsconnect.isRunning else {
            throw ServiceFailure(.noTarget, "neither KDE Connect (org.kde.kdeconnect) nor GSConnect (org.gnome.Shell.Extensions.GSConnect) is on the session bus: there are no devices to send to")
        }
        return try gsconnect.start(payload, to: deviceID)
    }
}
