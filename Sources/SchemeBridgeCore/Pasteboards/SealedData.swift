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

    init(_ descriptor: consuming FileDescriptor, size: Int64, charge: Int64? = nil) {
        self.descriptor = descriptor
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
        let memfd = try newMemfd()
        do {
            try memfd.writeAll(bytes)
        } catch {
            throw PasteboardError.failure(errno: error.code, "cannot store the data")
        }
        return try sealed(memfd, size: Int64(bytes.count))
    }

    /// A caller's memfd that is sealed against writes, growing and shrinking, taken as it is;
    /// nil for any other descriptor. Never blocks: the seals are asked first (`F_GET_SEALS`
    /// answers from the descriptor alone, on any file system), and only a sealed memfd (which
    /// lives in memory) is examined further.
    public static func adoptSealed(_ descriptor: borrowing FileDescriptor, limit: Int64) throws(PasteboardError) -> SealedData? {
        let fd = descriptor.rawValue
        guard clinux_is_sealed(fd) == 1 else { return nil }
        guard let st = try? descriptor.status(), st.st_mode & S_IFMT == S_IFREG else { return nil }
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
        let own: FileDescriptor
        do { own = try descriptor.duplicate() } catch { throw PasteboardError.failure(errno: error.code, "cannot keep the descriptor") }
        return SealedData(own, size: Int64(st.st_size), charge: charge)
    }

    /// Data from a caller's descriptor: a memfd sealed against writes, growing and shrinking is
    /// taken as it is; a regular file or an unsealed memfd is copied (what it holds now: later
    /// changes to it are not seen). Anything else (a pipe, a socket, a directory, a device, an
    /// `O_PATH` or write-only descriptor) is refused. More than `limit` bytes is `QuotaExceeded`.
    public static func take(_ descriptor: borrowing FileDescriptor, limit: Int64) throws(PasteboardError) -> SealedData {
        let fd = descriptor.rawValue
        let st: stat
        do { st = try descriptor.status() } catch {
            throw PasteboardError(.invalidArgument, "the file descriptor cannot be examined (errno \(error.code))")
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
        let copied: Int64
        do { copied = try descriptor.copy(to: out, offset: 0, limit: limit + 1) } catch {
            let e = error.code
            if e == ENOSPC || e == ENOMEM { throw PasteboardError(.quotaExceeded, "no memory left to hold the data (\(String(cString: strerror(e))))") }
            throw PasteboardError(.invalidArgument, "cannot read the descriptor: \(String(cString: strerror(e)))")
        }
        guard copied <= limit else { throw tooLarge(copied, limit) }
        return try sealed(out, size: copied)
    }

    /// A new read-only descriptor of the data, at offset 0 (a file description of its own, so
    /// readers never share a file offset).
    public func openForReading() throws(PasteboardError) -> FileDescriptor {
        do {
            return try descriptor.reopenForReading()
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
        let n: Int64
        do { n = try descriptor.copy(to: fd, offset: 0, limit: size) } catch { throw PasteboardError.failure(errno: error.code, "cannot write the data") }
        guard n == size else { throw PasteboardError.failure(errno: EIO, "cannot write the data") }
    }

    // MARK: internals

    /// `O_PATH` (not exported by Glibc's module): a descriptor that names a file but cannot read it.
    public static let pathOnlyFlag: Int32 = 0o10_000_000

    static func newMemfd() throws(PasteboardError) -> FileDescriptor {
        let fd = clinux_memfd("schemebridge-pasteboard")
        guard fd >= 0 else { throw PasteboardError.failure(errno: errno, "cannot make a memfd") }
        return FileDescriptor(owning: fd)
    }

    /// Seals `memfd` (a memfd of ours) and owns it.
    static func sealed(_ memfd: consuming FileDescriptor, size: Int64) throws(PasteboardError) -> SealedData {
        guard clinux_seal(memfd.rawValue) == 0 else { throw PasteboardError.failure(errno: errno, "cannot seal the data") }
        return SealedData(memfd, size: size)
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
