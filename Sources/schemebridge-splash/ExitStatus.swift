import Glibc

/// The helper's exit statuses. The service treats 0 as "the launch image is gone, for whatever
/// reason"; every other value is an error it may log.
enum ExitStatus: Int32 {
    /// Taken down (or never shown) normally: the app came up, exited, the timeout passed,
    /// startup notification said `remove:`, or SIGTERM/SIGINT/SIGHUP arrived.
    case takenDown = 0
    /// Bad command line.
    case usage = 1
    /// The image cannot be used: missing, unreadable, not a PNG, corrupt, or too large.
    case badImage = 2
    /// The X display cannot be opened (no `DISPLAY`, or the server refuses).
    case noDisplay = 3
    /// An X problem after the display was opened: unsupported visual, the connection lost.
    case xFailure = 4
}

/// An error that ends the helper with a message on stderr and the given status.
struct SplashFailure: Error {
    /// The exit status to end with.
    let status: ExitStatus
    /// What went wrong, for a person.
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
