import SchemeBridgeCore
// The devices this module lists and its failures are the core's: its clients need no import of the core for them.
@_exported import struct SchemeBridgeCore.NearbyDevice
@_exported import struct SchemeBridgeCore.ServiceFailure
@_exported import enum SchemeBridgeCore.DevicePayload
@_exported import struct SchemeBridgeCore.ReceivedFromDevice

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

/// The one function the share path calls to send to a device: ``KDEConnectEngine`` is one;
/// ``GSConnectEngine`` is another, and ``PreferredDeviceEngine`` picks the one in use.
public protocol DeviceSending: Sendable {
    /// The engine's name, as the Response's `engine` result.
    var engineName: String { get }
    /// The devices that can receive now (paired, reachable, share plugin on), in sheet order.
    var shareTargets: [NearbyDevice] { get }
    /// Hands `payload` to the engine for `deviceID`; returns once the engine took it.
    func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt
}
