import Glibc

/// Why the launch image goes (or never comes).
enum TakedownReason {
    /// Startup notification `remove:` for our id.
    case startupComplete
    /// A window of the handler is mapped; the text says which and why it matched.
    case handlerWindow(String)
    /// The handler process exited (or was not running at all).
    case handlerExited(pid_t)
    /// `--timeout-ms` passed.
    case timeout
    /// SIGTERM, SIGINT or SIGHUP.
    case signal(Int32)

    /// Whether the image goes at once even before `--min-show-ms` has passed.
    var ignoresMinimumShowTime: Bool {
        switch self {
        case .timeout, .signal: return true
        case .startupComplete, .handlerWindow, .handlerExited: return false
        }
    }

    /// Whether the helper should broadcast `remove:` itself (the app has not said it is done).
    var needsRemoveMessage: Bool {
        if case .startupComplete = self { return false }
        return true
    }

    /// A short description for the log.
    var description: String {
        switch self {
        case .startupComplete: return "startup notification remove:"
        case .handlerWindow(let what): return what
        case .handlerExited(let pid): return "handler \(pid) exited"
        case .timeout: return "timeout"
        case .signal(let n): return "signal \(n)"
        }
    }
}
