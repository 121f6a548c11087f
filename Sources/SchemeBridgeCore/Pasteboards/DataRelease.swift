import CLinux
import Glibc
import LinuxSystem
import Synchronization

/// Lets go of replaced pasteboard data on a thread of its own. The last close of a memfd frees
/// its pages in the kernel, which takes time in proportion to its size (`make bench`: ~15 ms for
/// 100 MiB, ~130 ms for 1 GiB): data that `SetItems` replaced is let go of here, never under
/// the store's lock (which the loop thread takes to read properties), on the caller's task, or
/// before the caller's reply.
final class DataRelease: Sendable {
    static let shared = DataRelease()

    private struct State {
        var pending: [[Pasteboard.Item]] = []
        /// False when the thread could not be set up: values are let go of by the caller.
        var running = true
    }
    private let state = Mutex(State())
    /// Wakes the thread (a blocking read waits on it); nil when the kernel gave no eventfd.
    private let wake: FileDescriptor?

    private init() {
        wake = try? FileDescriptor.eventCounter(blocking: true)
        guard wake != nil else {
            state.withLock { $0.running = false }
            return
        }
        OSThread.detached(name: "sb-pb-release") { [self] in run() }
    }

    /// Takes `items` (leaving it empty) and lets go of them on the release thread.
    func release(_ items: inout [Pasteboard.Item]) {
        guard !items.isEmpty else { return }
        let queued = state.withLock { s -> Bool in
            guard s.running else { return false }
            // Moved inside the lock, so the thread's reference is the last one whatever the
            // order in which the two let go.
            var moved: [Pasteboard.Item] = []
            swap(&moved, &items)
            s.pending.append(moved)
            return true
        }
        guard queued else { return }
        wake?.signalEvent()
    }

    private func run() {
        let wake: Int32 = switch self.wake { case .some(let fd): fd.rawValue; case .none: -1 }
        while true {
            var count: UInt64 = 0
            if read(wake, &count, 8) < 0 && errno != EINTR {
                // Cannot wait any more: the caller lets go from now on.
                let left = state.withLock { s -> [[Pasteboard.Item]] in
                    s.running = false
                    defer { s.pending = [] }
                    return s.pending
                }
                _ = left
                return
            }
            var batch: [[Pasteboard.Item]] = []
            state.withLock { s in swap(&batch, &s.pending) }
            batch.removeAll()
        }
    }
}
