import Glibc
import LinuxSystem
import Synchronization

/// Runs the registry's index writes on a thread of its own, debounced: ``schedule(after:)``
/// asks for a write no later than the given delay after the first request, so a burst of
/// changes gives one write. ``stop()`` performs a pending write at once, then ends the thread.
final class RegistryIndexWriter: Sendable {
    private struct State: Sendable {
        var due: ContinuousClock.Instant? = nil
        var stopping = false
        var started = false
        var thread: OSThread? = nil
    }

    private let state = Mutex(State())
    private let wake: FileDescriptor.Pipe
    private var wakeRead: Int32 { wake.readEnd.rawValue }
    private var wakeWrite: Int32 { wake.writeEnd.rawValue }
    private let job: @Sendable () -> Void

    /// Nil when no pipe could be made (then nothing is written and the registry scans at each
    /// start, as without an index).
    init?(job: @escaping @Sendable () -> Void) {
        do { wake = try FileDescriptor.pipe() } catch { return nil }
        self.job = job
    }

    /// Asks for a write within `delay` (an earlier request keeps its earlier time). Starts the
    /// thread on first use.
    func schedule(after delay: Duration) {
        let start = state.withLock { s -> Bool in
            if s.stopping { return false }
            let due = ContinuousClock.now.advanced(by: delay)
            if s.due == nil || due < s.due! { s.due = due }
            if s.started { return false }
            s.started = true
            return true
        }
        if start { startThread() }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Writes now if a write is pending, and ends the thread. Idempotent.
    func stop() {
        let thread: OSThread? = state.withLock { s in
            if s.stopping { return nil }
            s.stopping = true
            return s.thread
        }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if let thread {
            if thread.isCurrent { thread.detach() } else { thread.join() }
        }
        // A request made before the thread ever started is honoured here.
        let pending = state.withLock { s -> Bool in
            defer { s.due = nil }
            return s.due != nil
        }
        if pending { job() }
    }

    private func startThread() {
        if let thread = OSThread.start(name: "index-writer", { [self] in run() }) {
            state.withLock { $0.thread = thread }
        }
    }

    private func run() {
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (due, stopping) = state.withLock { ($0.due, $0.stopping) }
            if stopping { return }
            var timeout: Int32 = -1
            if let due {
                let left = ContinuousClock.now.duration(to: due)
                if left <= .zero {
                    state.withLock { $0.due = nil }
                    job()
                    continue
                }
                let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                timeout = Int32(min(ms, 60_000))
            }
            var p = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, timeout)
            _ = drain.withUnsafeMutableBytes { read(wakeRead, $0.baseAddress, $0.count) }
        }
    }
}
