import Glibc
import LinuxSystem

/// A Unix file descriptor carried in a D-Bus message (type `h`).
///
/// The descriptor is owned: it is closed when the last reference goes away. Received
/// descriptors are duplicates made by libdbus, so owning them is right; to send one of
/// your own, wrap a duplicate with ``init(duplicating:)``.
public final class UnixFD: Hashable, Sendable, CustomStringConvertible {
    /// The descriptor number, valid while this object lives.
    public let rawValue: Int32

    /// Takes ownership of `fd`.
    public init(owning fd: Int32) { self.rawValue = fd }

    /// Duplicates `fd` (close-on-exec) and owns the duplicate.
    public init(duplicating fd: Int32) throws(DBusError) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw DBusError(.failed, "cannot duplicate file descriptor \(fd): errno \(errno)")
        }
        self.rawValue = copy
    }

    deinit { close(rawValue) }

    public static func == (a: UnixFD, b: UnixFD) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { "fd \(rawValue)" }
}

extension UnixFD {
    /// Runs `body` with the descriptor as a ``FileDescriptor`` it may use but not close (this
    /// object still owns it and outlives the call).
    /// (Inlinable: specialized where it is called, as ``FileDescriptor/lending(_:_:)``.)
    @inlinable
    public func withFileDescriptor<T, E: Error>(_ body: (borrowing FileDescriptor) throws(E) -> T) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in try FileDescriptor.lending(rawValue, body) }
    }
}
