import CLinux
import Glibc
import LinuxSystem

/// One value of a pasteboard item: a sealed memfd, whose content can never change again —
/// neither the writer that sealed it, nor we, nor a reader can write, grow or shrink it. A
/// reader gets a read-only descriptor of its own (``openForReading()``), at offset 0.
///
/// Descriptors come and go as ``FileDescriptor``s (a number someone else owns is lent with
/// ``FileDescriptor/lending(_:_:)``). Making one from a caller's descriptor (``take(_:limit:)``) can block (a regular file on a
/// file system that never answers): do it on a thread of its own, never a shared one.
public final class SealedData: Sendable {
    /// The sealed memfd (owned: closed with this value).
    public let descriptor: FileDescriptor
    /// Its size in bytes.
    public let size: Int64
    /// What it costs its owner's quota: its size (a sparse memfd is charged all of it: holes can
    /// be filled with `fallocate` after sealing, by whoever still has the memfd), plus memory
    /// allocated past its end (`fallocate(FALLOC_FL_KEEP_SIZE)` before sealing), which the kernel
    /// holds for as long as we hold the memfd.
    public let charge: Int64

    init(owning descriptor: Int32, size: Int64, charge: Int64? = nil) {
        self.descriptor = FileDescriptor(owning: descriptor)
        self.size = size
        self.charge = max(size, charge ?? size)
    }

    /// The charge of a file of `size` bytes with `blocks` 512-byte blocks allocated: its size,
    /// plus what is allocated past its last page.
    static func charge(size: Int64, blocks: Int64) -> Int64 {
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let pages = (size + page - 1) / page * page
        return size + max(0, blocks * 512 - pages)
    }

    /// Data holding `bytes`.
    public static func make(bytes: [UInt8]) throws(PasteboardError) -> SealedData {
        let fd = try newMemfd()
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                throw PasteboardError.failure(errno: e, "cannot store the data")
            }
            written += n
        }
        return try sealed(fd, size: Int64(bytes.count))
    }

    /// A caller's memfd that is sealed against writes, growing and shrinking, taken as it is;
    /// nil for any other descriptor. Never blocks: the seals are asked first (`F_GET_SEALS`
    /// answers from the descriptor alone, on any file system), and only a sealed memfd (which
    /// lives in memory) is examined further.
    public static func adoptSealed(_ descriptor: borrowing FileDescriptor, limit: Int64) throws(PasteboardError) -> SealedData? {
        let fd = descriptor.rawValue
        guard clinux_is_sealed(fd) == 1 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & Self.pathOnlyFlag == 0, flags & O_ACCMODE != O_WRONLY else {
            throw PasteboardError(.invalidArgument, "the file descriptor is not open for reading")
        }
        let charge = Self.charge(size: Int64(st.st_size), blocks: Int64(st.st_blocks))
        guard charge <= limit else {
            guard Int64(st.st_size) <= limit else { throw tooLarge(Int64(st.st_size), limit) }
            throw PasteboardError(.quotaExceeded, "the memfd holds \(st.st_size) bytes but \(charge) bytes of memory (allocated past its end), "
                + "which does not fit in the app's pasteboard quota (\(limit) bytes left)")
        }
        let own = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard own >= 0 else { throw PasteboardError.failure(errno: errno, "cannot keep the descriptor") }
        return SealedData(owning: own, size: Int64(st.st_size), charge: charge)
    }

    /// Data from a caller's descriptor: a memfd sealed against writes, growing and shrinking is
    /// taken as it is; a regular file or an unsealed memfd is copied (what it holds now: later
    /// changes to it are not seen). Anything else (a pipe, a socket, a directory, a device, an
    /// `O_PATH` or write-only descriptor) is refused. More than `limit` bytes is `QuotaExceeded`.
    public static func take(_ descriptor: borrowing FileDescriptor, limit: Int64) throws(PasteboardError) -> SealedData {
        let fd = descriptor.rawValue
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw PasteboardError(.invalidArgument, "the file descriptor cannot be examined (errno \(errno))")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw PasteboardError(.invalidArgument, "a pasteboard descriptor must be a regular file or a memfd, not \(Self.kind(st.st_mode)): copy a stream into a memfd first")
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & Self.pathOnlyFlag == 0, flags & O_ACCMODE != O_WRONLY else {
            throw PasteboardError(.invalidArgument, "the file descriptor is not open for reading")
        }
        if let sealed = try adoptSealed(descriptor, limit: limit) { return sealed }
        let out = try newMemfd()
        var offset: Int64 = 0
        let copied = clinux_copy(fd, &offset, out, limit + 1)
        if copied < 0 {
            let e = errno
            close(out)
            if e == ENOSPC || e == ENOMEM { throw PasteboardError(.quotaExceeded, "no memory left to hold the data (\(String(cString: strerror(e))))") }
            throw PasteboardError(.invalidArgument, "cannot read the descriptor: \(String(cString: strerror(e)))")
        }
        guard copied <= limit else {
            close(out)
            throw tooLarge(copied, limit)
        }
        return try sealed(out, size: copied)
    }

    /// A new read-only descriptor of the data, at offset 0 (a file description of its own, so
    /// readers never share a file offset).
    public func openForReading() throws(PasteboardError) -> FileDescriptor {
        do {
            return try FileDescriptor.open("/proc/self/fd/\(descriptor.rawValue)", O_RDONLY)
        } catch {
            throw PasteboardError.failure(errno: error.code, "cannot open the data for reading")
        }
    }

    /// The data's bytes (for small items).
    public func bytes() throws(PasteboardError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(size))
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { pread(descriptor.rawValue, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PasteboardError.failure(errno: errno, "cannot read the data")
            }
            if n == 0 { break }
            done += n
        }
        return done == out.count ? out : Array(out.prefix(done))
    }

    /// Writes the data to `fd` (at its offset).
    public func copy(to fd: borrowing FileDescriptor) throws(PasteboardError) {
        var offset: Int64 = 0
        let n = clinux_copy(descriptor.rawValue, &offset, fd.rawValue, size)
        guard n == size else { throw PasteboardError.failure(errno: n < 0 ? errno : EIO, "cannot write the data") }
    }

    // MARK: internals

    /// `O_PATH` (not exported by Glibc's module): a descriptor that names a file but cannot read it.
    public static let pathOnlyFlag: Int32 = 0o10_000_000

    static func newMemfd() throws(PasteboardError) -> Int32 {
        let fd = clinux_memfd("schemebridge-pasteboard")
        guard fd >= 0 else { throw PasteboardError.failure(errno: errno, "cannot make a memfd") }
        return fd
    }

    /// Seals `fd` (a memfd of ours) and owns it.
    static func sealed(_ fd: Int32, size: Int64) throws(PasteboardError) -> SealedData {
        guard clinux_seal(fd) == 0 else {
            let e = errno
            close(fd)
            throw PasteboardError.failure(errno: e, "cannot seal the data")
        }
        return SealedData(owning: fd, size: size)
    }

    /// The error for `size` bytes when only `limit` fit in the quota.
    public static func tooLarge(_ size: Int64, _ limit: Int64) -> PasteboardError {
        PasteboardError(.quotaExceeded, "the data (\(size > limit ? "over \(limit)" : "\(size)") bytes) does not fit in the app's pasteboard quota (\(limit) bytes left)")
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }
}
