/// How loud a line the core hands the daemon's log is (the daemon's logger's levels).
public enum ServiceLogLevel: Sendable, Equatable {
    case info, notice, warning
}
