import Synchronization

/// What ``TransferProgress`` asks of the session: the notification server (the daemon speaks
/// `org.freedesktop.Notifications`) and the engine (cancelling a job).
public protocol TransferProgressPort: Sendable {
    /// Shows `summary` and `body` replacing notification `replacing` (0: a new one): with the
    /// percentage (the `value` hint) and a "Cancel" action while it runs (`percent`), without
    /// either once it ended (nil). The notification's id; nil when no server answers.
    func notify(replacing: UInt32, summary: String, body: String, percent: UInt32?) async -> UInt32?
    /// Hands the notification server's "cancel" actions (the notification's id) to `clicked`, from
    /// that server alone, until the task returned is cancelled; nil when they cannot be followed.
    func followCancels(_ clicked: @escaping @Sendable (UInt32) -> Void) async -> Task<Void, Never>?
    /// Asks the engine to cancel the job of view `view`.
    func cancel(view: UInt64)
}

/// A followed device transfer's progress where the user is: one notification "Sending to
/// <device>" with the file names and the percentage, and "Cancel" (which cancels the engine's
/// job), replaced in place as the engine reports, and replaced by a last one that says how it
/// ended. Shown only once the engine reported progress (a job it still runs after half a
/// second), so a small file shows nothing. Without a notification server nothing is shown and
/// nothing fails. A click on Cancel may come before `Notify`'s answer was read: it is kept.
public final class TransferProgress<Port: TransferProgressPort>: Sendable {
    private enum Step: Sendable { case percent(UInt64, UInt32), done(DeviceDelivery) }
    /// Where the steps go: nowhere before the first progress report (nothing is made for a
    /// transfer that never reports any: most end within half a second), then the task showing
    /// them; `ended` once it ended.
    private enum Steps: Sendable { case idle, showing(AsyncStream<Step>.Continuation), ended }
    private let steps = Mutex(Steps.idle)
    /// The notification shown (its id, 0 before the first), the job view it is for, and the
    /// notifications whose Cancel was clicked.
    private let current = Mutex<(shown: UInt32, view: UInt64?, clicked: Set<UInt32>)>((0, nil, []))
    private let port: Port
    private let device: String
    private let names: [String]
    private let executor: (any TaskExecutor)?

    /// Progress of sending `names` (file names) to `device` (its name as the engine gives it), over
    /// `port`. Nothing runs until the first ``show(view:percent:)``.
    public init(port: Port, device: String, names: [String], executor: (any TaskExecutor)? = nil) {
        (self.port, self.device, self.names, self.executor) = (port, device, names, executor)
    }

    /// The task that shows the steps of `stream`, started with the first.
    private func start(_ stream: AsyncStream<Step>) {
        let (port, title, files) = (port, Self.title(device: device), Self.files(names))
        Task(executorPreference: executor) { [self] in
            var actions: Task<Void, Never>?
            defer { actions?.cancel() }
            for await step in stream {
                let shown = current.withLock { $0.shown }
                switch step {
                case .percent(let view, let percent):
                    current.withLock { $0.view = view }
                    if shown == 0 { actions = await port.followCancels { [self] id in clicked(id, port: port) } }
                    if let id = await port.notify(replacing: shown, summary: title, body: Self.body(files: files, percent: percent), percent: percent) {
                        let view = current.withLock { s -> UInt64? in
                            s.shown = id
                            return s.clicked.contains(id) ? s.view : nil
                        }
                        if let view { port.cancel(view: view) }
                    }
                case .done(let delivery):
                    guard shown != 0 else { return }
                    _ = await port.notify(replacing: shown, summary: title, body: Self.body(files: files, ended: delivery), percent: nil)
                    return
                }
            }
        }
    }

    /// The engine reported `percent` for job view `view`.
    public func show(view: UInt64, percent: UInt32) {
        let started = steps.withLock { s -> (AsyncStream<Step>.Continuation, AsyncStream<Step>?)? in
            switch s {
            case .ended: return nil
            case .showing(let continuation): return (continuation, nil)
            case .idle:
                let (stream, continuation) = AsyncStream<Step>.makeStream()
                s = .showing(continuation)
                return (continuation, stream)
            }
        }
        guard let (continuation, stream) = started else { return }
        if let stream { start(stream) }
        continuation.yield(.percent(view, percent))
    }

    /// The transfer ended as `delivery` (nothing to show when it never reported progress).
    public func done(_ delivery: DeviceDelivery) {
        let showing = steps.withLock { s -> AsyncStream<Step>.Continuation? in
            defer { s = .ended }
            if case .showing(let continuation) = s { return continuation }
            return nil
        }
        showing?.yield(.done(delivery))
        showing?.finish()
    }

    private func clicked(_ id: UInt32, port: Port) {
        let view = current.withLock { s -> UInt64? in
            s.clicked.insert(id)
            return id == s.shown ? s.view : nil
        }
        if let view { port.cancel(view: view) }
    }

    /// The notification's summary: "Sending to <device>" (the name sanitised).
    public static func title(device: String) -> String { "Sending to \(DeviceName.sanitized(device))" }

    /// The files named: the first three, then how many more.
    public static func files(_ names: [String]) -> String {
        names.prefix(3).joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
    }

    /// The body while it runs: "<files>: <percent>%".
    public static func body(files: String, percent: UInt32) -> String { "\(files): \(percent)%" }

    /// The body once it ended.
    public static func body(files: String, ended delivery: DeviceDelivery) -> String {
        let how: String
        switch delivery {
        case .delivered: how = "sent"
        case .failed: how = "failed"
        case .unknown: how = "not finished in time: whether it arrives is unknown"
        case .handedToEngine: how = "handed to the engine"
        }
        return "\(files): \(how)"
    }
}
