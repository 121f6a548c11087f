import CLinux
import Glibc
import LinuxSystem

/// Copies everything from one descriptor to another inside the kernel, never holding the data
/// in this process: `copy_file_range` (file to file, a reflink where the file system can),
/// then `sendfile` (from a file to anything that takes it), then `splice` (to or from a pipe),
/// and a read/write loop through one 1 MiB buffer only where none of those applies (a terminal).
/// Each method hands over to the next from where it stopped when the kernel says it does not
/// apply to these two descriptors.
enum DescriptorCopy {
    /// The most one call asks for (below `MAX_RW_COUNT`, so no call is refused for its size).
    static let chunk = 1 << 30
    /// The buffer of the last resort.
    static let bufferSize = 1 << 20

    /// Copies from `input` to `output` until the end of `input`; returns the byte count.
    /// - Parameter offset: where to start reading `input` (its file position is then left alone,
    ///   so a descriptor shared with another process is read whole); nil reads from the current
    ///   position and advances it, as `cat` does with its standard input. Must be nil for a pipe.
    @discardableResult
    static func copy(from input: Int32, offset: Int64?, to output: Int32) throws(Errno) -> Int64 {
        var position = offset
        var total: Int64 = 0
        let methods: [Method] = [.copyFileRange, .sendfile, .splice]
        for method in methods {
            switch try run(method, input, &position, output, &total) {
            case .finished: return total
            case .notApplicable: continue
            }
        }
        try readWrite(input, &position, output, &total)
        return total
    }

    private enum Method { case copyFileRange, sendfile, splice }
    private enum Outcome { case finished, notApplicable }

    /// Runs `method` until the end of the input, or until the kernel says it does not apply.
    private static func run(_ method: Method, _ input: Int32, _ position: inout Int64?, _ output: Int32,
                            _ total: inout Int64) throws(Errno) -> Outcome {
        var moved = false
        while true {
            let n = step(method, input, &position, output)
            if n > 0 {
                total += Int64(n)
                moved = true
                continue
            }
            // copy_file_range sees nothing in some files (procfs, sysfs on kernels 5.3 to 5.18):
            // when it copied nothing at all, the next method looks again (an empty file costs a call).
            if n == 0 { return method == .copyFileRange && !moved ? .notApplicable : .finished }
            switch errno {
            case EINTR: continue
            case EAGAIN: waitUntilReady(input, output)
            // Not for these descriptors (a pipe, a terminal, two file systems, O_APPEND, old kernel).
            case EINVAL, EXDEV, ENOSYS, EOPNOTSUPP, EBADF, ESPIPE: return .notApplicable
            default: throw Errno.current
            }
        }
    }

    /// One call of `method`: bytes moved, 0 at the end, -1 with `errno`.
    private static func step(_ method: Method, _ input: Int32, _ position: inout Int64?, _ output: Int32) -> Int {
        switch method {
        case .copyFileRange:
            return withOffset(&position) { clinux_copy_file_range(input, $0, output, UInt(chunk)) }
        case .splice:
            return withOffset(&position) { clinux_splice(input, $0, output, UInt(chunk)) }
        case .sendfile:
            guard var off = position.map({ off_t($0) }) else { return Glibc.sendfile(output, input, nil, chunk) }
            let n = Glibc.sendfile(output, input, &off, chunk)
            position = Int64(off)
            return n
        }
    }

    /// Calls `body` with a pointer to the offset (nil when there is none) and keeps its update.
    private static func withOffset(_ position: inout Int64?, _ body: (UnsafeMutablePointer<Int64>?) -> Int) -> Int {
        guard var off = position else { return body(nil) }
        let n = body(&off)
        position = off
        return n
    }

    /// The last resort: `pread`/`read` into one buffer, then write it all.
    private static func readWrite(_ input: Int32, _ position: inout Int64?, _ output: Int32, _ total: inout Int64) throws(Errno) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = position.map { Glibc.pread(input, buffer.baseAddress, bufferSize, off_t($0)) } ?? Glibc.read(input, buffer.baseAddress, bufferSize)
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { waitUntilReady(input, output); continue }
                throw Errno.current
            }
            try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            position = position.map { $0 + Int64(n) }
            total += Int64(n)
        }
    }

    /// Writes all of `bytes` to `fd` (short writes, `EINTR`, `EAGAIN` on a non-blocking output).
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n >= 0 {
                written += n
            } else if errno == EAGAIN {
                waitUntilReady(-1, fd)
            } else if errno != EINTR {
                throw Errno.current
            }
        }
    }

    /// Waits (at most 100 ms, then the caller tries again) until a non-blocking input has data
    /// or a non-blocking output has room.
    private static func waitUntilReady(_ input: Int32, _ output: Int32) {
        var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: output, events: Int16(POLLOUT), revents: 0)]
        _ = poll(&fds, nfds_t(fds.count), 100)
    }
}
