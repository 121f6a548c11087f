import Glibc

/// Names looked up in an open directory (`openat`, `readlinkat`): one name resolved from the
/// directory, not a whole path from the root — e.g. a descriptor's entry in a kept
/// `/proc/self/fd` or `/proc/self/fdinfo`.
extension FileDescriptor {
    /// Opens `name`, in this directory, with `flags` (`O_CLOEXEC` is always added), again after a
    /// signal; throws the `errno`.
    public func open(relative name: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        while true {
            let fd = openat(rawValue, name, flags | O_CLOEXEC, mode)
            if fd >= 0 { return FileDescriptor(owning: fd) }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// Reads the symbolic link `name`, in this directory, into `buffer` (no NUL added; a link as
    /// long as the buffer may be cut), again after a signal; the number of bytes read, or throws
    /// the `errno`.
    public func readLink(relative name: String, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(Errno) -> Int {
        guard let start = buffer.baseAddress, !buffer.isEmpty else { throw Errno(EINVAL) }
        while true {
            let n = readlinkat(rawValue, name, UnsafeMutableRawPointer(start).assumingMemoryBound(to: CChar.self), buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw Errno.current }
        }
    }
}
