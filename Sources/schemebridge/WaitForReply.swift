import DBus
import SchemeBridgeContract

/// `schemebridge open --wait URL...`: `OpenURLWithReply`, then the request's one `Response`,
/// printed (`key=value` lines, or one JSON object with `--json`).
enum WaitForReply {
    /// Opens each URL and waits for its reply; returns the first failure's status.
    static func openAll(_ urls: [String], options: OpenOptions, json: Bool, service: SchemeBridgeBlockingClient) throws -> ExitStatus {
        var first: ExitStatus?
        for url in urls {
            let status = openAndWait(url, options: options, json: json, service: service)
            if status != .success, first == nil { first = status }
        }
        return first ?? .success
    }

    static func openAndWait(_ url: String, options: OpenOptions, json: Bool, service: SchemeBridgeBlockingClient) -> ExitStatus {
        if OpenDocument.path(url) != nil {
            let mark = Terminal.errors.count
            Terminal.error("'\(Open.shown(url))' is a file: --wait waits for a URL handler's reply; open files without it")
            if json { JSON.out(Open.notOpened(url, key: "file", .usage, since: mark)) }
            return .usage
        }
        let response: Response
        do {
            let path = try service.perform(.openURLWithReply(url, options: options))
            response = try waitForResponse(at: path, connection: service.connection)
        } catch {
            return Open.failed(url, error, json: json)
        }
        return report(response, leading: [("url", .string(url))], json: json)
    }

    /// Prints `response` (`status=` and `key=value` lines, or one JSON object after `leading`:
    /// `code`, `status`, `results` — keys with `-` as `_` — and, unless it succeeded, the error
    /// object) and returns its exit status: 0 success, 5 cancelled, 4 failed.
    static func report(_ response: Response, leading: [(String, JSON.Value)], json: Bool) -> ExitStatus {
        let code = ReplyCode(rawValue: response.code) ?? .failed
        let name: String
        switch code {
        case .success: name = "success"
        case .cancelled: name = "cancelled"
        case .failed: name = "failed"
        }
        if json {
            var members = leading + [("code", .number(.init(response.code))), ("status", .string(name)),
                                     ("results", .object(JSON.members(response.results)))]
            if code != .success { members.append(("error", failure(response))) }
            JSON.out(members)
        } else {
            Terminal.out("status=\(name)")
            for key in response.results.keys.sorted() {
                let v = response.results[key]!
                Terminal.out("\(key)=\(v.string.map(Open.shown) ?? JSON.text(JSON.value(v)))")
            }
        }
        switch code {
        case .success: return .success
        case .cancelled: return .cancelled
        case .failed: return .failed
        }
    }

    /// The error object of a response that is not success: its exit status, the `error-name` and
    /// `error-message` the service set (or `fallback`, or what the code says).
    static func failure(_ response: Response, fallback: String? = nil) -> JSON.Value {
        let cancelled = response.code == ReplyCode.cancelled.rawValue
        let message = response.results[Response.Key.errorMessage]?.string.flatMap { $0.isEmpty ? nil : $0 }
            ?? fallback ?? (cancelled ? "the request was cancelled" : "the request failed")
        return JSON.error((cancelled ? ExitStatus.cancelled : .failed).rawValue, message: message,
                          dbusError: response.results[Response.Key.errorName]?.string.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The `Response` of the request at `path` (sent to us only, exactly once).
    static func waitForResponse(at path: ObjectPath, connection: BlockingConnection) throws(DBusError) -> Response {
        while true {
            guard let message = try connection.nextSignal() else { continue }
            if message.path == path, let response = Response(message) { return response }
        }
    }
}
