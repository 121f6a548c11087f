import Synchronization

/// Where a backend call (`ChooseApplication`, `FileChooser.OpenFile`/`SaveFile`) is, so that the
/// frontend's `Close` reaches what is running it.
public enum PortalCallStage: Sendable, Equatable {
    /// Deciding: a dialog may be up (the work's task is cancelled on `Close`, which takes it down).
    case deciding
    /// A provider was started with the pick request of this id (a `Close` answers that request 1).
    case picking(UInt64)
    /// Handed to the desktop's own backend (a `Close` is sent on to its `Request` object).
    case delegated
}

/// How far one call has come, as its work tells it (``enter(_:)``); closed once the frontend
/// closed the request.
public final class PortalCallProgress: Sendable {
    /// nil once closed.
    private let stage = Mutex<PortalCallStage?>(.deciding)

    public init() {}

    /// Moves on to `next`; false when the call was closed already (then the work stops there and
    /// undoes what it started for `next`).
    public func enter(_ next: PortalCallStage) -> Bool {
        stage.withLock { s in
            guard s != nil else { return false }
            s = next
            return true
        }
    }

    /// Whether the frontend closed the call.
    public var isClosed: Bool { stage.withLock { $0 == nil } }

    /// Marks the call closed; returns where it was (nil when it was closed already).
    func close() -> PortalCallStage? {
        stage.withLock { s in
            defer { s = nil }
            return s
        }
    }
}

/// The backend calls in progress, by the frontend's request handle (issue 40). Each is answered
/// once: by its work's answer, or — when the frontend calls `Close` on the `Request` object at its
/// handle (the app closed its request, or left) — at once with the answer for a closed call
/// (response 1, as the portal's `Request` documentation says). A `Close` also cancels the work's
/// task, which takes a dialog that is up down (``ChooserProcess``: the program is stopped, and a
/// dialog ended by a signal is a cancel), and says where the call was (``PortalCallStage``) so the
/// adapter tells the provider's request or the delegate. The adapter exports the `Request`
/// object while ``run(handle:closed:_:)`` runs and passes its `Close` to ``close(_:)``.
public final class PortalCalls<Answer: Sendable>: Sendable {
    private final class Call: Sendable {
        let progress = PortalCallProgress()
        let closedAnswer: Answer
        private let state = Mutex<(continuation: CheckedContinuation<Answer, Never>?, task: Task<Void, Never>?)>((nil, nil))

        init(closedAnswer: Answer) { self.closedAnswer = closedAnswer }

        func start(_ c: CheckedContinuation<Answer, Never>, _ work: @escaping @Sendable (PortalCallProgress) async -> Answer) {
            let closedEarly = state.withLock { s -> Bool in
                s.continuation = c
                return progress.isClosed
            }
            if closedEarly { return resume(closedAnswer) }  // closed before it started: nothing runs
            // Not a child task: a Close answers at once while the work (a dialog) is still running.
            let task = Task { [self] in resume(await work(progress)) }
            let closed = state.withLock { s -> Bool in
                s.task = task
                return progress.isClosed
            }
            if closed { task.cancel() }
        }

        func resume(_ answer: Answer) {
            state.withLock { s in
                s.continuation?.resume(returning: answer)
                s.continuation = nil
            }
        }

        func close() -> PortalCallStage? {
            guard let stage = progress.close() else { return nil }
            resume(closedAnswer)
            state.withLock { $0.task }?.cancel()
            return stage
        }
    }

    private let running = Mutex<[String: Call]>([:])

    public init() {}

    /// Runs `work` for the call at `handle` and returns its answer, or `closed` as soon as the
    /// frontend closes the request (``close(_:)``; what `work` answers later is dropped: the
    /// frontend would still launch a `choice` that came after its `Close`). `registered` runs once
    /// a `Close` would find the call, before `work` starts: the adapter exports the `Request` object there.
    public func run(handle: String, closed: Answer, registered: () -> Void = {},
                    _ work: @escaping @Sendable (PortalCallProgress) async -> Answer) async -> Answer {
        let call = Call(closedAnswer: closed)
        running.withLock { $0[handle] = call }
        registered()
        let answer = await withCheckedContinuation { c in call.start(c, work) }
        running.withLock { r in
            if r[handle] === call { r[handle] = nil }
        }
        return answer
    }

    /// The frontend's `Close` of the call at `handle`: answers it at once (``run(handle:closed:_:)``
    /// returns its `closed` answer), cancels its work, and returns where it was; nil when no call
    /// runs there (answered already, or never made).
    public func close(_ handle: String) -> PortalCallStage? {
        running.withLock { $0.removeValue(forKey: handle) }?.close()
    }

    /// Whether a call runs at `handle`.
    public func isRunning(_ handle: String) -> Bool { running.withLock { $0[handle] != nil } }
}
