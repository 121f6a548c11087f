import CLinux
import Glibc
import LinuxSystem
import Synchronization

/// Deadlines by id, fired on one thread of their own. Unlike a sleeping task per deadline (whose
/// timer stays queued until it would have fired, even when cancelled), a cancelled deadline is
/// gone at once: nothing is left behind. O(log n) to schedule; cancelling is O(1) (the heap is
/// cleaned lazily, and compacted when stale entries outnumber live ones).
public final class DeadlineTimer: Sendable {
    private struct Entry: Comparable {
        let at: ContinuousClock.Instant
        let id: UInt64
        static func < (a: Entry, b: Entry) -> Bool { a.at < b.at }
    }
    private struct State {
        var live: [UInt64: ContinuousClock.Instant] = [:]
        var heap: [Entry] = []
        var stopped = false
    }
    private let state = Mutex(State())
    /// Wakes the thread for an earlier deadline; nil when the kernel gave no eventfd (the
    /// thread then wakes only for the deadlines it knew).
    private let wake: FileDescriptor?
    private let fire: @Sendable (UInt64) -> Void

    /// `fire` runs on the timer's thread with each id whose deadline passed; keep it short.
    public init(name: String, fire: @escaping @Sendable (UInt64) -> Void) {
        self.fire = fire
        wake = try? FileDescriptor.eventCounter()
        OSThread.detached(name: name) { [self] in run() }
    }

    /// Fires `id` at `deadline` (replacing an earlier deadline for it). The thread is woken only
    /// when this deadline comes first: it wakes for the first anyway, and looks again then.
    public func schedule(_ id: UInt64, at deadline: ContinuousClock.Instant) {
        let first = state.withLock { s in
            s.live[id] = deadline
            let first = s.heap.first.map { deadline < $0.at } ?? true
            Self.push(Entry(at: deadline, id: id), &s.heap)
            return first
        }
        if first { poke() }
    }

    /// Forgets `id`'s deadline.
    public func cancel(_ id: UInt64) {
        state.withLock { s in
            s.live.removeValue(forKey: id)
            if s.heap.count > 64 && s.heap.count > 2 * s.live.count {
                s.heap = s.live.map { Entry(at: $0.value, id: $0.key) }.sorted()
            }
        }
    }

    /// Deadlines pending now.
    public var count: Int { state.withLock { $0.live.count } }

    private func poke() {
        wake?.signalEvent()
    }

    private func run() {
        let wake: Int32 = switch self.wake { case .some(let fd): fd.rawValue; case .none: -1 }
        var pfd = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        while true {
            let now = ContinuousClock.now
            var due: [UInt64] = []
            let wait: Int32 = state.withLock { s in
                while let top = s.heap.first, top.at <= now {
                    Self.pop(&s.heap)
                    if s.live[top.id] == top.at {
                        s.live.removeValue(forKey: top.id)
                        due.append(top.id)
                    }
                }
                guard let next = s.heap.first else { return -1 }
                let left = next.at - now
                let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                return Int32(clamping: ms)
            }
            for id in due { fire(id) }
            if !due.isEmpty { continue }
            pfd.revents = 0
            if poll(&pfd, 1, wait) > 0 {
                var v: UInt64 = 0
                _ = read(wake, &v, 8)
            }
        }
    }

    private static func push(_ e: Entry, _ heap: inout [Entry]) {
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if heap[i] < heap[parent] { heap.swapAt(i, parent); i = parent } else { break }
        }
    }

    private static func pop(_ heap: inout [Entry]) {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l] < heap[m] { m = l }
            if r < heap.count && heap[r] < heap[m] { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
    }
}
