import DBus
import SchemeBridgeContract

/// The exit statuses of `schemebridge`, the same as `xdg-open`'s.
public enum ExitStatus: Int32, Sendable {
    /// Everything asked for was done.
    case success = 0
    /// Error in the command line: a malformed URL, a wrong argument.
    case usage = 1
    /// A file named on the command line does not exist, the handler asked for is not installed,
    /// or the pasteboard (or its item or type) does not exist for this caller.
    case notFound = 2
    /// No application handles the scheme, or no SchemeBridge service is reachable (or, with
    /// `--ask`, no chooser).
    case noHandler = 3
    /// The action failed: the handler could not be started, the caller is not allowed, rate limited;
    /// with `--wait`, the handler answered that it failed (or never answered).
    case failed = 4
    /// With `--wait`: the request was cancelled (the handler's answer, or `Close`); with `--ask`,
    /// the user cancelled the chooser.
    case cancelled = 5

    /// The status for a D-Bus error from the service or the bus.
    public init(_ error: DBusError) {
        if let contract = ContractError(error.name) {
            switch contract {
            case .invalidURL: self = .usage
            case .invalidHandler, .noSuchPasteboard, .noSuchType: self = .notFound
            case .noHandler, .reservedScheme, .noChooser, .noTarget, .notAppLink: self = .noHandler
            case .cancelled: self = .cancelled
            default: self = .failed
            }
            return
        }
        switch error.name {
        case .invalidArgs: self = .usage
        case .serviceUnknown, .nameHasNoOwner, .disconnected: self = .noHandler
        // The bus could not start the service: as for no service at all.
        case _ where ServiceClient.isActivationFailure(error.name): self = .noHandler
        default: self = .failed
        }
    }
}

/// A failure already reported to the user; the process exits with `status`.
public struct Reported: Error {
    /// The status to exit with.
    public let status: ExitStatus

    /// A failure reported already, ending the command with `status`.
    public init(status: ExitStatus) { self.status = status }
}
