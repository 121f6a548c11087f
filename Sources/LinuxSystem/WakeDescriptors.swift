import CLinux
import Glibc

/// The descriptors a thread of our own waits on (an inotify instance, an eventfd or a pipe to
/// wake it), made owned: each is closed with its value, on every path.
extension FileDescriptor {
    /// A new inotify instance, non-blocking and close-on-exec; throws the `errno` (`EMFILE`: the
    /// user's instances, `fs.inotify.max_user_instances`, are used up).
    public static func inotifyInstance() throws(Errno) -> FileDescriptor {
        let fd = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        if fd < 0 { throw Errno.current }
        return FileDescriptor(owning: fd)
    }

    /// A new eventfd counter at 0, close-on-exec and non-blocking (`blocking`: a read waits for
    /// a signal instead): a thread polls or reads it, another wakes it with ``signalEvent()``.
    public static func eventCounter(blocking: Bool = false) throws(Errno) -> FileDescriptor {
        let fd = eventfd(0, Int32(blocking ? EFD_CLOEXEC : EFD_CLOEXEC | EFD_NONBLOCK))
        if fd < 0 { throw Errno.current }
        return FileDescriptor(owning: fd)
    }

    /// Adds 1 to an eventfd counter (``eventCounter()``): a `poll` on it returns.
    public func signalEvent() {
        var one: UInt64 = 1
        _ = Glibc.write(rawValue, &one, 8)
    }

    /// Takes an exclusive `flock` on the open file, waiting for it (again after a signal); it is
    /// released when the descriptor is closed.
    public func lockExclusively() throws(Errno) {
        while flock(rawValue, LOCK_EX) != 0 {
            if errno != EINTR { throw Errno.current }
        }
    }

    /// The two ends of a pipe, each owned; frozen, so a caller may take the two ends apart
    /// (`let r = pipe.readEnd, w = pipe.writeEnd`).
    @frozen public struct Pipe: ~Copyable, Sendable {
        /// The end read from.
        public let readEnd: FileDescriptor
        /// The end written to.
        public let writeEnd: FileDescriptor
    }

    /// A new pipe, both ends non-blocking and close-on-exec; throws the `errno`.
    public static func pipe() throws(Errno) -> Pipe {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw Errno.current }
        let pipe = Pipe(readEnd: FileDescriptor(owning: fds[0]), writeEnd: FileDescriptor(owning: fds[1]))
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return pipe
    }
}

extension OSThread {
    /// ``start(name:failed:_:)`` of a thread that owns `descriptor`: `body` borrows it, and it is
    /// closed when `body` returns — or at once when the thread cannot be started.
    public static func start(name: String, owning descriptor: consuming FileDescriptor, failed: (Int32) -> Void = { _ in },
                             _ body: @escaping @Sendable (borrowing FileDescriptor) -> Void) -> OSThread? {
        // Handed over as its number: the thread owns it from its first line, this function when
        // no thread started.
        let fd = descriptor.take()
        guard let thread = start(name: name, failed: failed, {
            let owned = FileDescriptor(owning: fd)
            body(owned)
        }) else {
            _ = FileDescriptor(owning: fd)
            return nil
        }
        return thread
    }
}
