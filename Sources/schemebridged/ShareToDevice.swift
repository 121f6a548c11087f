import DBus
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// A share whose target is a nearby device: files (copied into the outbox under their names, so
/// the engine reads a file nobody can change or remove under it) and data that is not text go
/// as files in one `shareUrls`; text (`text/plain` data that is UTF-8) through `shareText`; URLs
/// as URLs. The request's `Response` is 0 with `target`, `device` and `engine` once the engine
/// took everything (no engine confirms delivery), else 2 with the reason: `NoTarget` when there
/// is no engine or the device cannot receive now, `LaunchFailed` when the engine did not take it.
extension Bridge {
    /// Sends `share` to the device `deviceID` and answers its request.
    func sendToDevice(_ share: PendingShare, deviceID: String) async throws(DBusError) {
        let devices = self.devices
        do throws(ServiceFailure) {
            var files: [String] = []
            var others: [DevicePayload] = []
            for item in share.items {
                switch item.payload {
                case .file(let fd):
                    files.append(try await devices.materialise(copying: fd.rawValue, name: item.name.isEmpty ? "document" : item.name))
                case .url(let url):
                    others.append(.url(url))
                case .data(.bytes(let bytes), _):
                    if item.summary.type == ContentTypeName.plainText, let text = String(validating: bytes, as: UTF8.self) {
                        others.append(.text(text))
                    } else {
                        files.append(try await devices.materialise(bytes, name: item.name.isEmpty ? nil : item.name))
                    }
                case .data(.descriptor(let fd), _):
                    files.append(try await devices.materialise(copying: fd, name: item.name.isEmpty ? nil : item.name))
                }
            }
            let payloads = (files.isEmpty ? [] : [DevicePayload.files(files)]) + others
            var receipt: DeviceSendReceipt?
            for payload in payloads {
                receipt = try await devices.sender.send(payload, to: deviceID)
            }
            guard let receipt else { throw ServiceFailure(.launchFailed, "nothing to send") }
            logger.info("shared \(share.items.count) item(s) with \(receipt.deviceName) (\(receipt.engine)) for \(share.caller.displayName)")
            replies.answer(share.request, code: .success, results: [
                ShareContract.ResultKey.device: .string(receipt.device), ShareContract.ResultKey.engine: .string(receipt.engine),
            ])
        } catch {
            throw DBusError(error)
        }
    }
}
