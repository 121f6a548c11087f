import LinuxSystem

/// A descriptor a caller handed over (the daemon's D-Bus descriptor), held open by its owner while
/// the core reads it: a share's file, a document to deliver, an item to copy.
public protocol HeldDescriptor: Sendable {
    /// The descriptor's number, valid while its owner lives.
    var rawValue: Int32 { get }
    /// Runs `body` with the descriptor as a ``FileDescriptor`` it may use but not close (the owner
    /// still holds it and outlives the call).
    func withFileDescriptor<T, E: Error>(_ body: (borrowing FileDescriptor) throws(E) -> T) throws(E) -> T
}
