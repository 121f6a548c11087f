import Glibc

extension FileDescriptor {
    /// ``open(_:_:mode:)`` of a path given as bytes, as the kernel names files (a name need not
    /// be UTF-8); throws the `errno` (`ENOENT` for a path with a NUL byte in it).
    public static func open(bytes path: [UInt8], _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        guard !path.contains(0) else { throw Errno(ENOENT) }
        let fd = (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, flags | O_CLOEXEC, mode) }
        }
        if fd < 0 { throw Errno.current }
        return FileDescriptor(owning: fd)
    }
}
