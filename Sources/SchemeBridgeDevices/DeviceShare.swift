import SchemeBridgeCore
// The devices this module lists, its failures and its sending protocol are the core's: its
// clients need no import of the core for them.
@_exported import struct SchemeBridgeCore.NearbyDevice
@_exported import struct SchemeBridgeCore.ServiceFailure
@_exported import enum SchemeBridgeCore.DevicePayload
@_exported import struct SchemeBridgeCore.ReceivedFromDevice
@_exported import struct SchemeBridgeCore.DeviceSendReceipt
@_exported import struct SchemeBridgeCore.DeviceSendStarted
@_exported import protocol SchemeBridgeCore.DeviceSending
@_exported import protocol SchemeBridgeCore.DeviceTransferJobs

/// KDE Connect's uploads, followed for a share sent to a device (``DeviceShareSender``).
extension KDEConnectJobs: DeviceTransferJobs {
    public func followTransfer(since mark: Mark, names: Set<String>, device: String, timeout: Duration,
                               progress: @escaping @Sendable (UInt64, UInt32) -> Void) async -> (DeviceDelivery, String?) {
        await follow(since: mark, names: names, device: device, timeout: timeout, progress: progress)
    }
}
