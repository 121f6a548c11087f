import CLinux
import Glibc
import Synchronization

/// Bytes from the kernel's CSPRNG (`getrandom`), read ``capacity`` at a time and handed out in
/// order, each byte once: a request token (``ReplyToken``) costs no system call until the pool is
/// spent. A byte handed out is overwritten with zero in the pool, so what is left in memory is
/// only what has not been given yet; nothing is ever given twice (the read position only moves
/// forward, under a lock, and a spent pool is filled anew from the kernel, never reused).
///
/// The service never forks without exec (it spawns with `posix_spawn`), so no second process
/// holds a copy of the pool's bytes.
public final class SecureRandomPool: Sendable {
    /// The service's pool.
    public static let shared = SecureRandomPool()

    /// Bytes read from the kernel at once.
    public let capacity: Int
    private let fill: @Sendable (UnsafeMutableRawBufferPointer) -> Void
    private struct State: ~Copyable {
        let bytes: UnsafeMutableRawBufferPointer
        /// The first byte not handed out yet (`bytes.count` when spent).
        var next: Int
        deinit {
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            bytes.deallocate()
        }
    }
    private let state: Mutex<State>

    /// A pool of `capacity` bytes (at least 64), filled by `fill` (the kernel's CSPRNG unless a
    /// test gives another) when a request finds too few left.
    public init(capacity: Int = 4096, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void = SecureRandomPool.kernelFill) {
        self.capacity = max(64, capacity)
        self.fill = fill
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: self.capacity, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        state = Mutex(State(bytes: bytes, next: self.capacity))
    }

    /// `count` bytes never handed out before. A request larger than the pool is read from the
    /// kernel directly.
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        guard count <= capacity else {
            return [UInt8](unsafeUninitializedCapacity: count) { out, n in
                fill(UnsafeMutableRawBufferPointer(out))
                n = count
            }
        }
        return state.withLock { s in
            if s.bytes.count - s.next < count {
                fill(s.bytes)
                s.next = 0
            }
            let start = s.next
            s.next += count
            let taken = UnsafeMutableRawBufferPointer(rebasing: s.bytes[start..<(start + count)])
            let out = [UInt8](taken)
            taken.initializeMemory(as: UInt8.self, repeating: 0)
            return out
        }
    }

    /// Fills `buffer` from `getrandom` (blocking only before the kernel's pool is initialized,
    /// early at boot).
    public static let kernelFill: @Sendable (UnsafeMutableRawBufferPointer) -> Void = { buffer in
        var filled = 0
        while filled < buffer.count {
            let n = clinux_getrandom(buffer.baseAddress! + filled, UInt(buffer.count - filled))
            if n < 0 {
                if errno == EINTR { continue }
                preconditionFailure("getrandom failed: \(errno)")  // the kernel always has entropy after boot
            }
            filled += Int(n)
        }
    }
}
