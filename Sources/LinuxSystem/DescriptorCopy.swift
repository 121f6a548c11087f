import CLinux
import Glibc

extension FileDescriptor {
    /// Copies from this descriptor to `output` inside the kernel, never holding the data in this
    /// process: `copy_file_range` (file to file, a reflink where the file system can), then
    /// `sendfile` (from a file to anything that takes it), then `splice` (to or from a pipe), and a
    /// read/write loop through one 1 MiB buffer only where none of those applies (a terminal).
    /// Each method hands over to the next from where it stopped when the kernel says it does not
    /// apply to these two descriptors. The one copy routine: the Inbox, pasteboard data, the
    /// outbox, "Save to…" and the command line all copy through it.
    ///
    /// Writes at `output`'s file position (advancing it). Stops at the end of the input or after
    /// `limit` bytes, whichever comes first; returns the byte count (fewer than asked when the
    /// input ended: a file that shrank is a short copy, not an error). A non-blocking end is
    /// waited on; anything the input cannot be read as (a directory: `EISDIR`) is thrown.
    /// - Parameter offset: where to start reading (the input's own file position is then left
    ///   alone, so a descriptor shared with another process is read whole); nil reads from the
    ///   current position and advances it, as `cat` does with its standard input. Must be nil
    ///   for a pipe.
    @discardableResult
    public func copy(to output: borrowing FileDescriptor, offset: Int64? = 0, limit: Int64 = .max) throws(Errno) -> Int64 {
        var state = KernelCopy(input: rawValue, output: output.rawValue, position: offset, left: max(0, limit))
        for method in [KernelCopy.Method.copyFileRange, .sendfile, .splice] {
            if try state.run(method) { return state.total }
        }
        try state.readWrite()
        return state.total
    }
}

/// The state of one ``FileDescriptor/copy(to:offset:limit:)``.
private struct KernelCopy {
    /// The most one call asks for (below `MAX_RW_COUNT`, so no call is refused for its size).
    static let chunk: Int64 = 1 << 30
    /// The buffer of the last resort.
    static let bufferSize = 1 << 20

    enum Method { case copyFileRange, sendfile, splice }

    let input: Int32, output: Int32
    var position: Int64?
    var left: Int64
    var total: Int64 = 0

    init(input: Int32, output: Int32, position: Int64?, left: Int64) {
        (self.input, self.output, self.position, self.left) = (input, output, position, left)
    }

    /// Runs `method` until the end of the input or the limit (true), or until the kernel says it
    /// does not apply (false).
    mutating func run(_ method: Method) throws(Errno) -> Bool {
        var moved = false
        while left > 0 {
            let n = step(method, Int(min(left, Self.chunk)))
            if n > 0 {
                advance(Int64(n))
                moved = true
                continue
            }
            // copy_file_range sees nothing in some files (procfs, sysfs on kernels 5.3 to 5.18):
            // when it copied nothing at all, the next method looks again (an empty file costs a call).
            if n == 0 { return !(method == .copyFileRange && !moved) }
            switch errno {
            case EINTR: continue
            case EAGAIN: waitUntilReady(input, output)
            // Not for these descriptors (a pipe, a terminal, two file systems, O_APPEND, old kernel).
            case EINVAL, EXDEV, ENOSYS, EOPNOTSUPP, EBADF, ESPIPE: return false
            default: throw Errno.current
            }
        }
        return true
    }

    /// One call of `method` for at most `count` bytes: bytes moved, 0 at the end, -1 with `errno`.
    mutating func step(_ method: Method, _ count: Int) -> Int {
        switch method {
        case .copyFileRange:
            let (input, output) = (input, output)
            return withOffset { clinux_copy_file_range(input, $0, output, UInt(count)) }
        case .splice:
            let (input, output) = (input, output)
            return withOffset { clinux_splice(input, $0, output, UInt(count)) }
        case .sendfile:
            guard var off = position.map({ off_t($0) }) else { return Glibc.sendfile(output, input, nil, count) }
            let n = Glibc.sendfile(output, input, &off, count)
            if n > 0 { position = Int64(off) }
            return n
        }
    }

    /// Calls `body` with a pointer to the offset (nil when there is none) and keeps its update.
    mutating func withOffset(_ body: (UnsafeMutablePointer<Int64>?) -> Int) -> Int {
        guard var off = position else { return body(nil) }
        let n = body(&off)
        if n > 0 { position = off }
        return n
    }

    mutating func advance(_ n: Int64) {
        total += n
        left -= n
    }

    /// The last resort: `pread`/`read` into one buffer, then write it all.
    mutating func readWrite() throws(Errno) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while left > 0 {
            let want = Int(min(left, Int64(Self.bufferSize)))
            let n = position.map { Glibc.pread(input, buffer.baseAddress, want, off_t($0)) } ?? Glibc.read(input, buffer.baseAddress, want)
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { waitUntilReady(input, output); continue }
                throw Errno.current
            }
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            position = position.map { $0 + Int64(n) }
            advance(Int64(n))
        }
    }

    /// Writes all of `bytes` to the output (short writes, `EINTR`, `EAGAIN` on a non-blocking output).
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(output, bytes.baseAddress! + written, bytes.count - written)
            if n >= 0 {
                written += n
            } else if errno == EAGAIN {
                waitUntilReady(-1, output)
            } else if errno != EINTR {
                throw Errno.current
            }
        }
    }

    /// Waits (at most 100 ms, then the caller tries again) until a non-blocking input has data
    /// or a non-blocking output has room.
    func waitUntilReady(_ input: Int32, _ output: Int32) {
        var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: output, events: Int16(POLLOUT), revents: 0)]
        _ = poll(&fds, nfds_t(fds.count), 100)
    }
}
