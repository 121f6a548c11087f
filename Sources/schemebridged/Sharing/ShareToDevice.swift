import DBus
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// A share whose target is a nearby device: the core's ``OutboxKeeper`` says what its items are
/// sent as (``DeviceItemRoute``, ``DeviceFileSource``), its ``DeviceShareSender`` hands them to
/// the engine and follows KDE Connect's upload (``TransferProgress`` shows it, ``TransferCancel``
/// cancels it when a waiting caller gives up). The request's `Response` is 0 with `target`,
/// `device`, `engine` and `delivery` (``DeviceDelivery``) once the engine took everything — and,
/// when the upload is followed, once it ended (`delivered`), or 2 when it failed (`LaunchFailed`)
/// or had not ended within `[Devices] Timeout` (`Timeout`, `delivery` `unknown`); else 2 with the
/// reason: `NoTarget` when there is no engine or the device cannot receive now, `LaunchFailed`
/// when the engine did not take it.
extension Sharing {
    /// Sends `share` to the device `deviceID` and answers its request.
    func sendToDevice(_ share: PendingShare, deviceID: String) async throws {
        let (files, receipt, followed) = try await devices.shareSender.send(share.items, to: deviceID, started: share.sending, outbox: devices.outbox,
                                                                            caller: share.caller, inbox: documents.inbox.root)
        var results = Self.handedToEngine(receipt)
        // A caller that waits for the delivery (`delivery`: `share --wait`) of a followed upload is
        // answered at its end; any other now (before the following starts), and told the end by
        // `TransferEnded` (the progress notification follows it too).
        let waits = share.options.delivery && followed != nil
        if !waits { replies.answer(share.request, code: .success, results: results); await replies.connection.quietTurn() }  // the Response delivered first: the following's set-up would compete with it for a core
        logger.debug("shared \(share.items.count) item(s) with \(receipt.deviceName) (\(receipt.engine)) for \(share.caller.displayName)")
        guard let followed else { return }
        let seconds = min(broker.policy.current.deviceTimeout, Int64(share.options.timeout ?? UInt32.max))
        let (cancel, follow) = devices.shareSender.transfer(since: followed, files: files, device: receipt.deviceName, timeout: .seconds(seconds),
                                               progress: DeviceProgressPort(connection: devices.engine.connection, jobs: devices.engine.jobs),
                                               executor: replies.connection.loopExecutor,
                                               log: { [logger] failed, line in if failed { logger.notice("\(line())") } else { logger.debug("\(line())") } })
        guard !waits else {
            // Giving up (`Close`, or it left: `share --wait` stopped by Ctrl-C) cancels the transfer, as the notification's Cancel does.
            replies.whenCallerGivesUp(share.request) { cancel.request() }
            let (delivery, reason) = await follow.value
            results[ShareContract.ResultKey.delivery] = .string(delivery.rawValue)
            let failure = Self.failure(delivery, reason)
            return replies.answer(share.request, code: failure == nil ? .success : .failed, results: results.merging(failure ?? [:]) { _, new in new })
        }
        let (connection, request, caller) = (replies.connection, ReplyService.path(share.request), try? BusName(share.caller.busName))
        Task(executorPreference: replies.connection.loopExecutor) {
            let (delivery, reason) = await follow.value
            var details = results.filter { $0.key != ShareContract.ResultKey.delivery }.merging(Self.failure(delivery, reason) ?? [:]) { _, new in new }
            details[ShareContract.ResultKey.target] = .string(deviceID)
            guard let caller else { return }
            try? connection.emit(TransferEnded(request: request, delivery: delivery.rawValue, details: details), to: caller)
        }
    }

    /// The Response's results for a share the engine took (`receipt`).
    static func handedToEngine(_ receipt: DeviceSendReceipt) -> [String: DBusValue] {
        [ShareContract.ResultKey.device: .string(receipt.device), ShareContract.ResultKey.engine: .string(receipt.engine),
         ShareContract.ResultKey.delivery: .string(DeviceDelivery.handedToEngine.rawValue)]
    }

    /// The error keys of a transfer that did not arrive (``DeviceDeliveryRule/failure(_:_:)``).
    private static func failure(_ delivery: DeviceDelivery, _ reason: String?) -> [String: DBusValue]? {
        guard let (timedOut, message) = DeviceDeliveryRule.failure(delivery, reason) else { return nil }
        let name = timedOut ? Contract.errorPrefix + "Timeout" : ContractError.launchFailed.name.rawValue
        return Response.failure(name: name, message: message)
    }
}
