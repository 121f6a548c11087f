import CLinux
import DBus
import Glibc
import LinuxSystem

/// A pasteboard item's data as the CLI sends it: a memfd holding a copy of a file (or of
/// standard input), sealed so that its content can never change (`F_SEAL_WRITE`,
/// `F_SEAL_SHRINK`, `F_SEAL_GROW`, `F_SEAL_SEAL`). The service takes such a descriptor as it is,
/// without copying it again, and hands readers a view that cannot change under them.
enum SealedMemfd {
    /// A sealed memfd holding everything `input` yields from its current position (a file, a pipe,
    /// a terminal, a socket). The copy stays in the kernel (`FileDescriptor.copy(to:offset:limit:)`).
    static func copy(of input: Int32, name: String = "schemebridge-pasteboard-item") throws(Errno) -> UnixFD {
        let raw = clinux_memfd(name)
        guard raw >= 0 else { throw Errno.current }
        let memfd = FileDescriptor(owning: raw)
        _ = try FileDescriptor.lending(input) { (source) throws(Errno) in try source.copy(to: memfd, offset: nil) }
        // Sealed, and back at offset 0 for whoever reads this open file next.
        guard clinux_seal(memfd.rawValue) == 0, lseek(memfd.rawValue, 0, SEEK_SET) == 0 else { throw Errno.current }
        return UnixFD(owning: memfd.take())
    }
}
