import Glibc

extension FileDescriptor {
    /// What ``openNoFollow(_:_:)`` opens a file for.
    public enum NoFollowAccess: Sendable, Equatable {
        /// Reading a file that is there.
        case read
        /// Writing a new file made with `permissions`; `EEXIST` when anything is there (a symlink too).
        case createNew(permissions: mode_t)
        /// Writing a file made with `permissions`, or emptied when it is there.
        case createOrTruncate(permissions: mode_t)

        var flags: Int32 {
            switch self {
            case .read: return O_RDONLY
            case .createNew: return O_WRONLY | O_CREAT | O_EXCL
            case .createOrTruncate: return O_WRONLY | O_CREAT | O_TRUNC
            }
        }

        var permissions: mode_t {
            switch self {
            case .read: return 0
            case .createNew(let p), .createOrTruncate(let p): return p
            }
        }
    }

    /// Opens `path` the one way a path someone else may control is opened: a symlink in its last
    /// component is refused (`ELOOP`), a FIFO or device never blocks the open (`O_NONBLOCK`, left
    /// set: a FIFO read later answers `EAGAIN` rather than waiting for a writer; it changes nothing
    /// for a regular file), a terminal never becomes ours (`O_NOCTTY`), and the descriptor is not
    /// inherited (`O_CLOEXEC`). What it opened may still be any kind of file: callers that need a
    /// regular file check ``status()``.
    public static func openNoFollow(_ path: String, _ access: NoFollowAccess = .read) throws(Errno) -> FileDescriptor {
        let opened = path.withCString { p in Result(catching: { () throws(Errno) -> Int32 in try openNoFollowNumber(p, access) }) }
        return FileDescriptor(owning: try opened.get())
    }

    /// ``openNoFollow(_:_:)`` of a path given as a C string (a path whose bytes need not be UTF-8).
    public static func openNoFollow(cString path: UnsafePointer<CChar>, _ access: NoFollowAccess = .read) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try openNoFollowNumber(path, access))
    }

    private static func openNoFollowNumber(_ path: UnsafePointer<CChar>, _ access: NoFollowAccess) throws(Errno) -> Int32 {
        while true {
            let fd = Glibc.open(path, access.flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, access.permissions)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// The path the kernel gives for what the descriptor names (`/proc/self/fd/N`'s link, as
    /// bytes: a name need not be UTF-8); nil when it gives none.
    public func kernelPath() -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(rawValue)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return buffer[..<n].map { UInt8(bitPattern: $0) }
    }

    /// A new descriptor of the same open file description (`F_DUPFD_CLOEXEC`).
    public func duplicate() throws(Errno) -> FileDescriptor {
        let fd = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        if fd < 0 { throw Errno.current }
        return FileDescriptor(owning: fd)
    }

    /// A new read-only descriptor of the same file with an open file description (and so a file
    /// offset) of its own, through `/proc/self/fd`.
    public func reopenForReading() throws(Errno) -> FileDescriptor {
        try FileDescriptor.open("/proc/self/fd/\(rawValue)", O_RDONLY)
    }
}
