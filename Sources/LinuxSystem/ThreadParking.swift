import Glibc

/// A place where one thread of our own waits (parks) until another hands it something to do
/// (unparks it) or a time limit passes: a POSIX semaphore, counted, so an unpark that comes
/// before the park is not lost.
public final class ThreadParking: @unchecked Sendable {
    // The semaphore needs a stable address; it is only touched through sem_* calls.
    private let semaphore: UnsafeMutablePointer<sem_t>

    public init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes the parked thread (or lets its next park return at once).
    public func unpark() { sem_post(semaphore) }

    /// Waits for an unpark, about `seconds` at most (by the wall clock: an idle limit, where a
    /// clock step only makes the wait shorter or longer); true when unparked.
    public func park(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Waits for an unpark, however long it takes.
    public func park() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }
}
