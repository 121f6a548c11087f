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
