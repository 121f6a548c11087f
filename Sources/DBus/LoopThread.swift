import CDBus
import LinuxSystem
import Synchronization
import Glibc

/// Starts the detached loop thread running `body`.
func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    OSThread.detached(name: name, body)
}

/// Milliseconds on the monotonic clock.
@inline(__always)
func monotonicMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// A queue of work for the loop thread, fed from any thread. Writing the eventfd wakes
/// the thread's `poll`; it is written only when the queue goes from empty to non-empty.
final class JobQueue: Sendable {
    typealias Job = @Sendable () -> Void
    private struct State {
        var jobs: [Job] = []
        var closed = false
    }
    private let state = Mutex(State())
    /// The eventfd that wakes the loop thread.
    let wakeFD: Int32

    init() {
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(wakeFD >= 0, "eventfd failed: errno \(errno)")
    }

    deinit { Glibc.close(wakeFD) }

    /// Queues `job` for the loop thread; when the loop has ended, runs `orElse` instead
    /// (on the caller's thread) and returns false.
    @discardableResult
    func submit(_ job: @escaping Job, orElse: (() -> Void)? = nil) -> Bool {
        let (accepted, wake) = state.withLock { s -> (Bool, Bool) in
            if s.closed { return (false, false) }
            s.jobs.append(job)
            return (true, s.jobs.count == 1)
        }
        if !accepted {
            orElse?()
            return false
        }
        if wake { signal() }
        return true
    }

    /// Wakes the loop thread.
    func signal() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Clears the eventfd counter.
    func drainWake() {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
    }

    /// Takes every queued job.
    func take() -> [Job] {
        state.withLock { s in
            let jobs = s.jobs
            s.jobs.removeAll(keepingCapacity: true)
            return jobs
        }
    }

    /// Refuses further jobs and returns those still queued.
    func close() -> [Job] {
        state.withLock { s in
            s.closed = true
            let jobs = s.jobs
            s.jobs = []
            return jobs
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether no job is queued.
    var isEmpty: Bool { state.withLock { $0.jobs.isEmpty } }
}
