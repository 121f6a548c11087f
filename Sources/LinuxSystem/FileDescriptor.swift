import Glibc

/// An open file descriptor that this value owns: it is closed when the value goes away,
/// exactly once, unless ``take()`` hands it on.
public struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(owning rawValue: Int32) { self.rawValue = rawValue }

    /// Opens `path` with `flags` (`O_CLOEXEC` is always added); throws the `errno`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
        if fd < 0 { throw Errno.current }
        return FileDescriptor(owning: fd)
    }

    deinit { _ = Glibc.close(rawValue) }

    /// Gives up ownership: the caller closes the descriptor.
    public consuming func take() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    /// `fstat` of the descriptor.
    public func status() throws(Errno) -> stat {
        var st = stat()
        if fstat(rawValue, &st) != 0 { throw Errno.current }
        return st
    }

    /// Reads up to `count` bytes into `buffer`, retrying on `EINTR`; 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        while true {
            let n = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// ``writeAll(_:)`` of an array's bytes.
    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        let outcome = bytes.withUnsafeBytes { b in Result(catching: { () throws(Errno) in try writeAll(b) }) }
        try outcome.get()
    }

    /// Writes all of `bytes`, retrying on `EINTR` and short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(rawValue, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            written += n
        }
    }
}

/// A system error number.
public struct Errno: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    public let code: Int32
    public init(_ code: Int32) { self.code = code }
    /// The calling thread's `errno`.
    public static var current: Errno { Errno(errno) }
    /// `strerror`'s text.
    public var description: String { String(cString: strerror(code)) }
}

extension FileDescriptor {
    /// Runs `body` with `rawValue` as a descriptor it may use but not close: the caller keeps
    /// owning `rawValue` (an adapter between APIs that take a ``FileDescriptor`` and a number
    /// someone else owns, such as a descriptor received in a D-Bus message).
    /// Inlinable: specialized where it is called (unspecialized, its `Result` of the caller's types
    /// is made through the runtime's generic metadata at every call).
    @inlinable
    public static func lending<T, E: Error>(_ rawValue: Int32, _ body: (borrowing FileDescriptor) throws(E) -> T) throws(E) -> T {
        let descriptor = FileDescriptor(owning: rawValue)
        let result: Result<T, E>
        do throws(E) { result = .success(try body(descriptor)) } catch { result = .failure(error) }
        _ = descriptor.take()
        return try result.get()
    }
}
