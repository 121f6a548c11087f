/// What a paired device can have waiting, and how long a burst of its shares stays one transfer
/// (``ReceivedTransfers``). The defaults are documented in docs/GUIDE.md ("What a device sends").
public struct ReceivedTransferLimits: Sendable, Equatable {
    /// A device's transfer stays open while its shares keep coming with gaps shorter than this
    /// (milliseconds since its last `shareReceived`). KDE Connect (22.12) announces each file of a
    /// multi-file share as it completes, one after the other, each over a payload connection of
    /// its own: measured on a kdeconnectd pair beside heavy load, 10 files (1 KiB to 2 MiB) in
    /// one `shareUrls` were announced 0.17 to 0.95 s apart (docs/GUIDE.md). Twice the largest gap.
    public var quietMilliseconds: Int64 = 2_000
    /// A transfer closes at the latest this long after its first share, however busy the device:
    /// a device that never pauses still gets one notification per this period, not one never.
    /// (At about 0.5 s a file, an album of 120 files is one transfer.)
    public var longestMilliseconds: Int64 = 60_000
    /// At most this many closed transfers of one device wait for an answer (their notification
    /// still shown); while that many wait, what it sends is kept, listed in the log, not offered.
    public var maximumPending = 3
    /// At most this many items of one transfer are offered (named, opened); the rest of the
    /// transfer is kept where the engine put it and only counted.
    public var maximumOffered = 20

    public init() {}
}

/// One burst of what one device sent: the items offered (named in its notification, opened by
/// "Open") and how many more arrived in it that are only kept.
public struct ReceivedTransfer: Sendable, Equatable {
    /// Unique among the transfers of one ``ReceivedTransfers``.
    public let id: UInt64
    public let deviceID: String
    /// The items offered, in arrival order (at most ``ReceivedTransferLimits/maximumOffered``).
    public var offered: [ReceivedShare]
    /// How many more items arrived in this transfer past the cap: kept where the engine put
    /// them, never opened (only counted here, so a flood costs no memory; the service logs each).
    public var kept: Int
    /// When its first and last item arrived (milliseconds, the caller's monotonic clock).
    public var firstArrival: Int64
    public var lastArrival: Int64

    /// When it closes unless another item arrives: ``ReceivedTransferLimits/quietMilliseconds``
    /// after the last item, never later than ``ReceivedTransferLimits/longestMilliseconds`` after the first.
    public func deadline(_ limits: ReceivedTransferLimits) -> Int64 {
        min(lastArrival + limits.quietMilliseconds, firstArrival + limits.longestMilliseconds)
    }
}

/// The grouping of what devices send into transfers, and the caps on what a device can have
/// waiting — the rule `schemebridged` follows for every `shareReceived` (one notification per
/// transfer, never one per file):
///
/// 1. A share from a device on the "not from this device" list (``BlockedDevices``) is
///    ``Arrival/blocked``: kept where the engine put it, logged, never offered or opened.
/// 2. A share from a device with an open transfer joins it (the first
///    ``ReceivedTransferLimits/maximumOffered`` items are offered, later ones only kept), unless
///    the transfer is past its ``ReceivedTransfer/deadline(_:)``.
/// 3. Else it starts a new transfer — unless the device already has
///    ``ReceivedTransferLimits/maximumPending`` transfers waiting for an answer: then the share
///    is ``Arrival/overflow`` (kept, logged, not offered).
/// 4. A transfer closes at its deadline (``close(at:)``) and then waits for an answer until
///    ``settle(_:)`` (its notification was answered, dismissed or expired; or it was acted on
///    at once where there is no notification).
///
/// Time is the caller's (milliseconds of a monotonic clock): the rule itself never reads a clock.
public struct ReceivedTransfers: Sendable {
    /// What became of one share.
    public enum Arrival: Sendable, Equatable {
        /// It started transfer `id`, offered.
        case started(UInt64)
        /// It joined transfer `id`; `offered` says whether within the cap.
        case joined(UInt64, offered: Bool)
        /// Not offered: the device has ``ReceivedTransferLimits/maximumPending`` transfers waiting.
        case overflow
        /// Not offered: the device is on the "not from this device" list.
        case blocked
    }

    public let limits: ReceivedTransferLimits
    private var open: [String: ReceivedTransfer] = [:]
    private var pending: [String: Set<UInt64>] = [:]
    private var nextID: UInt64 = 1

    public init(limits: ReceivedTransferLimits = ReceivedTransferLimits()) {
        self.limits = limits
    }

    /// Takes `share` from `deviceID` arriving at `now`; `blocked`: the device is on the list.
    /// Transfers past their deadline are not joined (call ``close(at:)`` first to have them).
    public mutating func receive(_ share: ReceivedShare, from deviceID: String, at now: Int64, blocked: Bool) -> Arrival {
        if blocked { return .blocked }
        if var transfer = open[deviceID], now < transfer.deadline(limits) {
            let offered = transfer.offered.count < limits.maximumOffered
            if offered { transfer.offered.append(share) } else { transfer.kept += 1 }
            transfer.lastArrival = now
            open[deviceID] = transfer
            return .joined(transfer.id, offered: offered)
        }
        guard waiting(deviceID) < limits.maximumPending else { return .overflow }
        let id = nextID
        nextID += 1
        open[deviceID] = ReceivedTransfer(id: id, deviceID: deviceID, offered: [share], kept: 0, firstArrival: now, lastArrival: now)
        return .started(id)
    }

    /// Closes every transfer whose deadline is at or before `now` and returns them, oldest
    /// first; each now waits for an answer (counted against its device until ``settle(_:)``).
    public mutating func close(at now: Int64) -> [ReceivedTransfer] {
        var closed: [ReceivedTransfer] = []
        for (device, transfer) in open where transfer.deadline(limits) <= now {
            open[device] = nil
            pending[device, default: []].insert(transfer.id)
            closed.append(transfer)
        }
        return closed.sorted { $0.id < $1.id }
    }

    /// The earliest deadline of an open transfer (when ``close(at:)`` has something to close).
    public var nextDeadline: Int64? { open.values.map { $0.deadline(limits) }.min() }

    /// Transfer `id` is answered (or dismissed, expired, acted on): its device may have another.
    public mutating func settle(_ id: UInt64) {
        for (device, ids) in pending where ids.contains(id) {
            pending[device]?.remove(id)
            if pending[device]?.isEmpty == true { pending[device] = nil }
        }
    }

    /// How many closed transfers of `deviceID` wait for an answer.
    public func waiting(_ deviceID: String) -> Int { pending[deviceID]?.count ?? 0 }

    /// Forgets `deviceID`'s open transfer (it was put on the "not from this device" list): what
    /// it held is returned, to be kept and logged, never offered.
    public mutating func drop(_ deviceID: String) -> ReceivedTransfer? {
        open.removeValue(forKey: deviceID)
    }
}
