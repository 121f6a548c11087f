/// Why a request ended without its handler's reply: the contract error name (after the error
/// prefix) and message its `Response(2, …)` carries to the caller.
public struct RequestEnding: Equatable, Sendable {
    /// The last component of the error name (`HandlerExited`).
    public let errorName: String
    /// A message a person can act on.
    public let message: String

    public init(errorName: String, message: String) {
        self.errorName = errorName
        self.message = message
    }

    /// A spawned handler ended (with `status`) without replying.
    public static func handlerExited(status: Int32) -> RequestEnding {
        RequestEnding(errorName: "HandlerExited", message: "the handler exited\(status == 0 ? "" : " with status \(status)") without replying")
    }

    /// The handler gave no reply before the request's timeout.
    public static let timedOut = RequestEnding(errorName: "Timeout", message: "the handler did not reply in time")

    /// An activated handler's connection left the bus without replying.
    public static let handlerLeftBus = RequestEnding(errorName: "HandlerExited", message: "the handler left the bus without replying")
}

extension RequestTable {
    /// `name` left the bus: takes out the requests it made (`dropped`: nobody is left to tell)
    /// and those whose activated handler it was (`failed`: the caller is told
    /// ``RequestEnding/handlerLeftBus``).
    public func nameLeft(_ name: String) -> (dropped: [Request], failed: [(Request, RequestEnding)]) {
        (takeAll(caller: name), takeAll(handlerOwner: name).map { ($0, .handlerLeftBus) })
    }
}

/// How a spawned handler's exit ends the request it was started for, when it did not reply.
public enum HandlerExitOutcome: Equatable, Sendable {
    /// Done: a share's target that exits with status 0 took the items.
    case success
    /// Failed: `HandlerExited` (with the status).
    case failed(RequestEnding)

    /// The outcome of an exit with `status`; `isShare`: the request is a share's.
    public static func of(status: Int32, isShare: Bool) -> HandlerExitOutcome {
        status == 0 && isShare ? .success : .failed(.handlerExited(status: status))
    }
}

extension RequestTable.Purpose {
    /// The codes `Reply` takes: 0 success, 1 cancelled, 2 failed.
    public static let replyCodes: ClosedRange<UInt32> = 0...2

    /// `InvalidArgs` unless `code` is one of ``replyCodes``.
    public static func checkReplyCode(_ code: UInt32) throws(ServiceFailure) {
        guard replyCodes.contains(code) else {
            throw ServiceFailure(.invalidArgument, "code must be 0 (success), 1 (cancelled) or 2 (failed), not \(code)")
        }
    }

    /// `InvalidArgs` when `Reply(code)` may not answer a request of this purpose: a pick is
    /// answered with its documents (`ProvideDocuments`), so only cancelled (1) or failed (2).
    public func checkReply(code: UInt32) throws(ServiceFailure) {
        if case .pick = self, code == 0 {
            throw ServiceFailure(.invalidArgument, "a pick is answered with ProvideDocuments (or Reply with 1 to cancel, 2 to fail), not Reply with 0")
        }
    }
}
