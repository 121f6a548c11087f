import DBus
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices
import Synchronization

/// A share whose target is a nearby device, each item routed by the core's ``DeviceItemRoute``
/// (files and data that is not text as files, in one send; text; URLs), in the order of
/// ``DevicePayload/sends(files:others:)``. A file goes by its own path or as an outbox copy, as
/// ``DeviceFileSource`` says; data that is not text always as an outbox file. The request's
/// `Response` is 0 with `target`, `device`, `engine` and `delivery` (``DeviceDelivery``) once the
/// engine took everything — and, when KDE Connect reports its upload (``KDEConnectJobs``), once
/// that upload ended (`delivered`), or 2 when it failed (`LaunchFailed`) or had not ended within
/// `[Devices] Timeout` (`Timeout`, `delivery` `unknown`); else 2 with the reason: `NoTarget`
/// when there is no engine or the device cannot receive now, `LaunchFailed` when the engine did
/// not take it.
extension Sharing {
    /// Sends `share` to the device `deviceID` and answers its request.
    func sendToDevice(_ share: PendingShare, deviceID: String) async throws {
        let devices = self.devices
        var files: [String] = []
        var others: [DevicePayload] = []
        for item in share.items {
            var inline: [UInt8]? = nil, url: String? = nil, source: Int32? = nil
            switch item.payload {
            case .file(let fd): source = fd.rawValue
            case .url(let u): url = u
            case .data(.bytes(let bytes), _): inline = bytes
            case .data(.descriptor(let fd), _): source = fd
            }
            switch DeviceItemRoute.of(item.summary, name: item.name, url: url, bytes: inline) {
            case .text(let text): others.append(.text(text))
            case .url(let url): others.append(.url(url))
            case .outboxFile(let name):
                if case .file(let fd) = item.payload,
                   case .direct(let path) = await fileSource(of: item, fd: fd.rawValue, share: share) {
                    files.append(path)
                } else if let source {
                    files.append(try await devices.materialise(copying: source, name: name))
                } else {
                    files.append(try await devices.materialise(inline ?? [], name: name))
                }
            }
        }
        let payloads = DevicePayload.sends(files: files, others: others)
        var receipt: DeviceSendReceipt?
        // KDE Connect's uploads, as it reports them (``KDEConnectJobs``): the job it runs for
        // the files is followed to its end.
        let jobs = devices.engine.jobs
        var followed: KDEConnectJobs.Mark?
        for payload in payloads {
            let mark = jobs.mark()
            receipt = try await devices.sender.send(payload, to: deviceID)
            if case .files = payload, receipt?.engine == devices.engine.engineName, jobs.isServing { followed = mark }
        }
        guard let receipt else { throw ServiceFailure(.launchFailed, "nothing to send") }
        logger.info("shared \(share.items.count) item(s) with \(receipt.deviceName) (\(receipt.engine)) for \(share.caller.displayName)")
        var results: [String: DBusValue] = [
            ShareContract.ResultKey.device: .string(receipt.device), ShareContract.ResultKey.engine: .string(receipt.engine),
            ShareContract.ResultKey.delivery: .string(DeviceDelivery.handedToEngine.rawValue),
        ]
        if let followed {
            let seconds = min(broker.policy.current.deviceTimeout, Int64(share.options.timeout ?? UInt32.max))
            let names = Set(files.map { String($0.split(separator: "/").last ?? "") })
            let progress = DeviceProgress(devices: devices, device: receipt.deviceName, names: names.sorted(), jobs: jobs)
            let (logger, device) = (logger, receipt.deviceName)
            // A caller that waits and gives up (`Close`, or it left: `share --wait` stopped by
            // Ctrl-C) cancels the transfer, as the notification's Cancel does.
            let cancel = TransferCancel(jobs: jobs)
            if share.options.delivery { replies.whenCallerGivesUp(share.request) { cancel.request() } }
            let follow = Task {
                let (delivery, reason) = await jobs.follow(since: followed, names: names, device: device, timeout: .seconds(seconds),
                                                           progress: { view, percent in
                                                               cancel.following(view)
                                                               progress.show(view: view, percent: percent)
                                                           })
                progress.done(delivery)
                logger.info("the transfer to \(device): \(delivery.rawValue)\(reason.map { " (\($0))" } ?? "")")
                return (delivery, reason)
            }
            // A caller that waits for the delivery (`delivery`: `share --wait`) is answered at
            // the transfer's end; any other now, and told the end by `TransferEnded` (the
            // progress notification follows it too).
            if share.options.delivery {
                let (delivery, reason) = await follow.value
                results[ShareContract.ResultKey.delivery] = .string(delivery.rawValue)
                if let failure = Self.failure(delivery, reason) {
                    results.merge(failure) { _, new in new }
                    replies.answer(share.request, code: .failed, results: results)
                    return
                }
            } else {
                replies.answer(share.request, code: .success, results: results)
                let (connection, request, caller) = (replies.connection, ReplyService.path(share.request), try? BusName(share.caller.busName))
                Task {
                    let (delivery, reason) = await follow.value
                    var details = results.filter { $0.key != ShareContract.ResultKey.delivery }.merging(Self.failure(delivery, reason) ?? [:]) { _, new in new }
                    details[ShareContract.ResultKey.target] = .string(deviceID)
                    guard let caller else { return }
                    try? connection.emit(TransferEnded(request: request, delivery: delivery.rawValue, details: details), to: caller)
                }
                return
            }
        }
        replies.answer(share.request, code: .success, results: results)
    }

    /// The error keys of a transfer that did not arrive: `failed` is `LaunchFailed`, `unknown`
    /// is `Timeout`, each with the engine's reason; nil when delivered.
    private static func failure(_ delivery: DeviceDelivery, _ reason: String?) -> [String: DBusValue]? {
        guard let reason, delivery == .failed || delivery == .unknown else { return nil }
        let name = delivery == .unknown ? Contract.errorPrefix + "Timeout" : ContractError.launchFailed.name.rawValue
        return [Response.Key.errorName: .string(name), Response.Key.errorMessage: .string(reason)]
    }

    /// Where file item `item` (descriptor `fd`) is sent from: decided from what was found as the
    /// share was made (it named this device), else from a fresh look (a device picked on the sheet).
    private func fileSource(of item: SharedItem, fd: Int32, share: PendingShare) async -> DeviceFileSource {
        if let facts = item.facts { return devices.source(from: facts) }
        return await devices.source(ofFile: fd, name: item.name, caller: share.caller, inbox: documents.inbox.root)
    }
}

/// Cancels a followed transfer once both are known: that it is wanted, and the job's view.
private final class TransferCancel: Sendable {
    private let jobs: KDEConnectJobs
    private let state = Mutex<(view: UInt64?, wanted: Bool, sent: Bool)>((nil, false, false))

    init(jobs: KDEConnectJobs) { self.jobs = jobs }

    /// The job reported progress under view `view`.
    func following(_ view: UInt64) { settle { $0.view = view } }

    /// The caller gave up.
    func request() { settle { $0.wanted = true } }

    private func settle(_ change: (inout (view: UInt64?, wanted: Bool, sent: Bool)) -> Void) {
        let view = state.withLock { s -> UInt64? in
            change(&s)
            guard s.wanted, !s.sent, let view = s.view else { return nil }
            s.sent = true
            return view
        }
        if let view { jobs.cancel(view) }
    }
}
