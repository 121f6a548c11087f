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
            Terminal.error("'\(Open.shown(url))' is a file: --wait waits for a URL handler's reply; open files without it")
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

    /// Prints `response` (`status=` and `key=value` lines, or one JSON object after `leading`)
    /// and returns its exit status: 0 success, 5 cancelled, 4 failed.
    static func report(_ response: Response, leading: [(String, JSON.Value)], json: Bool) -> ExitStatus {
        let code = ReplyCode(rawValue: response.code) ?? .failed
        let name: String
        switch code {
        case .success: name = "success"
        case .cancelled: name = "cancelled"
        case .failed: name = "failed"
        }
        if json {
            let results = response.results.keys.sorted().map { ($0, JSON.value(response.results[$0]!)) }
            Terminal.out(JSON.text(.object(leading + [("code", .number(String(response.code))), ("status", .string(name)),
                                                      ("results", .object(results))])))
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

    /// The `Response` of the request at `path` (sent to us only, exactly once).
    static func waitForResponse(at path: ObjectPath, connection: BlockingConnection) throws(DBusError) -> Response {
        while true {
            guard let message = try connection.nextSignal() else { continue }
            if message.path == path, let response = Response(message) { return response }
        }
    }
}
