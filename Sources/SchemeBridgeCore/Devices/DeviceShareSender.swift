import Synchronization

/// A share sent to a nearby device: its sends (``DevicePayload/sends(files:others:)``) handed to
/// the engine in order and — when KDE Connect reports its uploads (``DeviceTransferJobs``) — the
/// upload of its files followed to its end, with its progress shown and cancelled when the
/// caller gives up. The daemon answers the request with what this returns.
public struct DeviceShareSender<Jobs: DeviceTransferJobs>: Sendable {
    /// The engine in use.
    @usableFromInline let sender: any DeviceSending
    /// The reports of the engine whose uploads can be followed.
    @usableFromInline let jobs: Jobs
    /// That engine's name (`kdeconnect`): only a send it took is followed.
    @usableFromInline let followedEngine: String

    /// Sends through `sender`, following `jobs` when the engine that took the files is `followedEngine`.
    public init(sender: any DeviceSending, jobs: Jobs, followedEngine: String) {
        (self.sender, self.jobs, self.followedEngine) = (sender, jobs, followedEngine)
    }

    /// A share's sends on their way (``start(_:to:)``): the first handed to the engine, the
    /// rest still to send, in order, once it was taken.
    public struct Sending: Sendable {
        @usableFromInline let first: DeviceSendStarted
        /// Whether the first send is the share's files (the upload that may be followed).
        @usableFromInline let firstIsFiles: Bool
        /// What had happened before the first send was handed over.
        @usableFromInline let mark: Jobs.Mark
        @usableFromInline let rest: ArraySlice<DevicePayload>

        @usableFromInline
        init(first: DeviceSendStarted, firstIsFiles: Bool, mark: Jobs.Mark, rest: ArraySlice<DevicePayload>) {
            (self.first, self.firstIsFiles, self.mark, self.rest) = (first, firstIsFiles, mark, rest)
        }
    }

    /// Runs `body` with the receipt as soon as the engine took the share's one send (KDE Connect:
    /// in the dispatch of its reply, before ``finish(_:to:)`` goes on); false, and nothing runs,
    /// when the share has more sends or the engine does not tell at once.
    @inlinable
    public func whenTaken(_ sending: Sending, _ body: @escaping @Sendable (DeviceSendReceipt) -> Void) -> Bool {
        guard sending.rest.isEmpty, let onTaken = sending.first.onTaken else { return false }
        onTaken(body)
        return true
    }

    /// Hands the first of `sends` to the engine for `deviceID` now (``DeviceSending/start(_:to:)``:
    /// KDE Connect's call leaves at once), the rest left for ``finish(_:to:)``. `LaunchFailed`
    /// when there is nothing to send; what the engine can say without its call, as it comes.
    @inlinable
    public func start(_ sends: [DevicePayload], to deviceID: String) throws(ServiceFailure) -> Sending {
        guard let first = sends.first else { throw ServiceFailure(.launchFailed, "nothing to send") }
        let mark = jobs.mark()
        let isFiles = if case .files = first { true } else { false }
        return Sending(first: try sender.start(first, to: deviceID), firstIsFiles: isFiles, mark: mark, rest: sends.dropFirst())
    }

    /// Waits until the engine took `sending`'s first send, then hands it the rest for
    /// `deviceID`, in order, each once the one before was taken; the last receipt, and where to
    /// follow the files' upload from when the engine reports it (nil: it is not followed). The
    /// engine's failure as it comes.
    @inlinable
    public func finish(_ sending: Sending, to deviceID: String) async throws(ServiceFailure) -> (DeviceSendReceipt, Jobs.Mark?) {
        var receipt = try await sending.first.taken()
        var followed: Jobs.Mark? = sending.firstIsFiles && receipt.engine == followedEngine && jobs.isServing ? sending.mark : nil
        for payload in sending.rest {
            let mark = jobs.mark()
            receipt = try await sender.send(payload, to: deviceID)
            if case .files = payload, receipt.engine == followedEngine, jobs.isServing { followed = mark }
        }
        return (receipt, followed)
    }

    /// Hands `sends` to the engine for `deviceID`, in order (``start(_:to:)``, then
    /// ``finish(_:to:)``); the last receipt, and where to follow the files' upload from when the
    /// engine reports it (nil: it is not followed). `LaunchFailed` when there is nothing to send;
    /// the engine's failure as it comes. Inlinable: specialized for the daemon's jobs where it is
    /// called (no generic metadata looked up per share).
    @inlinable
    public func send(_ sends: [DevicePayload], to deviceID: String) async throws(ServiceFailure) -> (DeviceSendReceipt, Jobs.Mark?) {
        try await finish(try start(sends, to: deviceID), to: deviceID)
    }

    /// Follows the upload of `files` (paths) to `device` since `mark` for at most `timeout`:
    /// its progress to `progress` (view, percent), and `cancel` told each job view (it cancels
    /// once the caller gave up). How it ended and why.
    public func follow(since mark: Jobs.Mark, files: [String], device: String, timeout: Duration, cancel: TransferCancel,
                       progress: @escaping @Sendable (UInt64, UInt32) -> Void) async -> (DeviceDelivery, String?) {
        await follow(since: mark, names: Self.names(files), device: device, timeout: timeout, cancel: cancel, progress: progress)
    }

    private func follow(since mark: Jobs.Mark, names: Set<String>, device: String, timeout: Duration, cancel: TransferCancel,
                        progress: @escaping @Sendable (UInt64, UInt32) -> Void) async -> (DeviceDelivery, String?) {
        await jobs.followTransfer(since: mark, names: names, device: device, timeout: timeout) { view, percent in
            cancel.following(view)
            progress(view, percent)
        }
    }

    /// A followed upload of `files` to `device` since `mark`, for at most `timeout`: its progress
    /// shown over `port` (``TransferProgress``) and its end logged with `log` (whether it failed —
    /// `failed` or `unknown` — and the line, built only when asked). The cancel to
    /// request when the caller gives up, and the task that ends with the upload (how, and why).
    public func transfer<Port: TransferProgressPort>(since mark: Jobs.Mark, files: [String], device: String, timeout: Duration, progress port: Port,
                                                     executor: (any TaskExecutor)? = nil,
                                                     log: @escaping @Sendable (_ failed: Bool, _ line: () -> String) -> Void) -> (cancel: TransferCancel, ended: Task<(DeviceDelivery, String?), Never>) {
        let jobs = self.jobs
        let cancel = TransferCancel { jobs.cancel($0) }
        let names = Self.names(files)
        let progress = TransferProgress(port: port, device: device, names: names.sorted(), executor: executor)
        let ended = Task(executorPreference: executor) {
            let (delivery, reason) = await follow(since: mark, names: names, device: device, timeout: timeout, cancel: cancel) { view, percent in
                progress.show(view: view, percent: percent)
            }
            progress.done(delivery)
            log(delivery == .failed || delivery == .unknown) { "the transfer to \(device): \(delivery.rawValue)\(reason.map { " (\($0))" } ?? "")" }
            return (delivery, reason)
        }
        return (cancel, ended)
    }

    /// The file names a followed job names: the last component of each path (trailing `/`
    /// ignored; `/` alone names ""). Found in the path's bytes: splitting it into characters
    /// (grapheme by grapheme) cost ~20,000 instructions a share, a twentieth of the service's
    /// (session 21, `Benchmarks/share-callgrind.sh`).
    public static func names(_ files: [String]) -> Set<String> {
        let slash = UInt8(ascii: "/")
        return Set(files.map { path in
            var bytes = path.utf8[...]
            while bytes.last == slash { bytes = bytes.dropLast() }
            let name = bytes.lastIndex(of: slash).map { bytes[bytes.index(after: $0)...] } ?? bytes
            return String(Substring(name))
        })
    }
}

/// Cancels a followed transfer once both are known: that it is wanted (the caller gave up) and
/// the job's view; once.
public final class TransferCancel: Sendable {
    private let cancel: @Sendable (UInt64) -> Void
    private let state = Mutex<(view: UInt64?, wanted: Bool, sent: Bool)>((nil, false, false))

    /// Cancels by calling `cancel` with the job's view.
    public init(_ cancel: @escaping @Sendable (UInt64) -> Void) { self.cancel = cancel }

    /// The job reported progress under view `view`.
    public func following(_ view: UInt64) { settle { $0.view = view } }

    /// The caller gave up.
    public func request() { settle { $0.wanted = true } }

    private func settle(_ change: (inout (view: UInt64?, wanted: Bool, sent: Bool)) -> Void) {
        let view = state.withLock { s -> UInt64? in
            change(&s)
            guard s.wanted, !s.sent, let view = s.view else { return nil }
            s.sent = true
            return view
        }
        if let view { cancel(view) }
    }
}

extension DeviceDeliveryRule {
    /// Why a followed transfer's share failed, as its answer says it: `failed` is `LaunchFailed`,
    /// `unknown` is `Timeout` (the contract's error named so), each with the engine's reason; nil
    /// when it arrived (or nothing more is known).
    public static func failure(_ delivery: DeviceDelivery, _ reason: String?) -> (timedOut: Bool, message: String)? {
        guard let reason, delivery == .failed || delivery == .unknown else { return nil }
        return (delivery == .unknown, reason)
    }
}

extension DeviceShareSender {
    /// A share's items handed to the engine as the share was made (``startNow(_:decided:outbox:)``):
    /// the device, the files' paths, the first send on its way or why it could not start.
    public struct Started: Sendable {
        public let deviceID: String
        public let files: [String]
        public let sending: Result<Sending, ServiceFailure>

        @usableFromInline
        init(deviceID: String, files: [String], sending: Result<Sending, ServiceFailure>) {
            (self.deviceID, self.files, self.sending) = (deviceID, files, sending)
        }
    }

    /// Hands a share's `items` to the engine now when `decision` settled it for a device
    /// (``SettledHandler/init(decided:)``, a ``ShareTargetID/device(_:)``) and they go as they are
    /// (``OutboxKeeper/directSends(for:)``: no outbox copy to wait for); else nil. What stops the
    /// start is kept for the share's answer, not thrown.
    @inlinable
    public func startNow<Held>(_ items: [SharedItem<Held>], decided decision: HandlerDecision, outbox: OutboxKeeper) -> Started? {
        guard let id = SettledHandler(decided: decision)?.id, case .device(let deviceID)? = ShareTargetID(id.text),
              let direct = outbox.directSends(for: items) else { return nil }
        return Started(deviceID: deviceID, files: direct.files, sending: Result { () throws(ServiceFailure) in try start(direct.sends, to: deviceID) })
    }

    /// Sends `items` to `deviceID` (from `caller`; the Inboxes at `inbox` excluded), in order:
    /// as started when the share was made (`started`), else from now, outbox copies made as
    /// needed; returns once the engine took the last (``finish(_:to:)``). The files' paths, the
    /// last receipt, and where to follow the files' upload from (nil: it is not followed).
    @inlinable
    public func send<Held>(_ items: [SharedItem<Held>], to deviceID: String, started: Started?, outbox: OutboxKeeper, caller: Caller,
                           inbox: String) async throws(ServiceFailure) -> (files: [String], receipt: DeviceSendReceipt, followed: Jobs.Mark?) {
        let (files, sending): ([String], Sending)
        if let started, started.deviceID == deviceID {
            (files, sending) = (started.files, try started.sending.get())
        } else {
            let made = try await outbox.sends(for: items, caller: caller, inbox: inbox)
            (files, sending) = (made.files, try start(made.sends, to: deviceID))
        }
        let (receipt, followed) = try await finish(sending, to: deviceID)
        return (files, receipt, followed)
    }
}
