import LinuxSystem
import Synchronization

/// Runs caller identification — reads of another process's `/proc` files, its root directory
/// and its executable, any of which a hostile caller can put on a file system that never
/// answers (FUSE in its own user namespace) — on threads of its own, never on the loop thread
/// or the cooperative pool, and never waits for one longer than ``timeout``.
///
/// Each job gets a thread of its own (named `sb-identify`), at most ``maximumThreads`` at once;
/// a job waits for a free one within its ``timeout``. A job that times out is abandoned (its
/// caller is unidentified) while its thread finishes whenever the system lets it; when every
/// thread has been stuck longer than ``timeout``, new jobs are refused at once instead of
/// waiting. A waiting queue longer than ``maximumWaiting`` is refused too. So a stuck read costs
/// one thread, never a shared one, and identification never delays a call by more than ``timeout``.
public final class IdentificationThreads: Sendable {
    /// The longest a job is waited for (queueing included).
    public let timeout: Duration
    /// The most threads running jobs at once.
    public let maximumThreads: Int
    /// The most jobs waiting for a thread.
    public let maximumWaiting: Int

    private struct State {
        var running: [UInt64: ContinuousClock.Instant] = [:]
        var waiting: [(id: UInt64, start: @Sendable (UInt64) -> Void)] = []
        var nextID: UInt64 = 0
    }
    private let state = Mutex(State())

    /// The name its threads carry (`ps`, `perf`).
    public let threadName: String

    /// `threadName` names the threads; other blocking work (copying a caller's descriptor)
    /// uses an instance of its own with a longer timeout.
    public init(timeout: Duration = .seconds(3), maximumThreads: Int = 16, maximumWaiting: Int = 1024, threadName: String = "sb-identify") {
        self.threadName = threadName
        self.timeout = timeout
        self.maximumThreads = max(1, maximumThreads)
        self.maximumWaiting = max(0, maximumWaiting)
    }

    /// Threads running a job now (stuck ones included).
    public var runningCount: Int { state.withLock { $0.running.count } }

    /// The result of `job`, run on a thread of its own; nil when it did not finish within
    /// ``timeout`` or could not be started.
    public func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T? {
        let outcome = Outcome<T>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            outcome.install(continuation)
            let timeout = self.timeout
            outcome.setTimer(Task { [outcome] in
                try? await Task.sleep(for: timeout)
                outcome.finish(nil)
            })
            acquire { [self, outcome] slot in
                guard let slot else { return outcome.finish(nil) }
                guard !outcome.isFinished else { return release(slot) }
                let started = OSThread.start(name: threadName) { [self, outcome] in
                    outcome.finish(job())
                    release(slot)
                }
                if started == nil {
                    release(slot)
                    outcome.finish(nil)
                } else {
                    started?.detach()
                }
            }
        }
    }

    /// Calls `start` with a slot (at once or when one frees), or with nil when refused.
    private func acquire(_ start: @escaping @Sendable (UInt64?) -> Void) {
        let now = ContinuousClock.now
        enum Decision { case run(UInt64), wait, refuse }
        let decision: Decision = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            if s.running.count < maximumThreads {
                s.running[id] = now
                return .run(id)
            }
            let allStuck = s.running.values.allSatisfy { now - $0 > timeout }
            if allStuck || s.waiting.count >= maximumWaiting { return .refuse }
            s.waiting.append((id, { start($0) }))
            return .wait
        }
        switch decision {
        case .run(let id): start(id)
        case .wait: break
        case .refuse: start(nil)
        }
    }

    /// Frees `slot`, handing it to the first waiting job.
    private func release(_ slot: UInt64) {
        let next: (UInt64, @Sendable (UInt64) -> Void)? = state.withLock { s in
            s.running.removeValue(forKey: slot)
            guard !s.waiting.isEmpty else { return nil }
            let w = s.waiting.removeFirst()
            s.running[w.id] = ContinuousClock.now
            return (w.id, w.start)
        }
        if let (id, start) = next { start(id) }
    }
}

/// One job's answer, delivered once: by the job or by its timer, whichever comes first.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        var timer: Task<Void, Never>?
        var finished = false
    }
    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func setTimer(_ timer: Task<Void, Never>) {
        let cancel = state.withLock { s in
            if s.finished { return true }
            s.timer = timer
            return false
        }
        if cancel { timer.cancel() }
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    func finish(_ value: T?) {
        let (continuation, timer) = state.withLock { s -> (CheckedContinuation<T?, Never>?, Task<Void, Never>?) in
            guard !s.finished else { return (nil, nil) }
            s.finished = true
            defer { s.continuation = nil; s.timer = nil }
            return (s.continuation, s.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: value)
    }
}
