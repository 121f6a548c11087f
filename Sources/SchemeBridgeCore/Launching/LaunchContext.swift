import Glibc
import Synchronization

/// What a launched handler is told about its launch, in one place: both the spawned child's
/// environment and the `platform_data` of a D-Bus activation are derived from it, so the two
/// ways of starting an app can never disagree.
public struct LaunchContext: Sendable, Equatable {
    /// The caller's app id (`SCHEMEBRIDGE_SOURCE`, `source`).
    public var source: String?
    /// The caller's activation token (`XDG_ACTIVATION_TOKEN`, `activation-token`).
    public var activationToken: String?
    /// The startup-notification id (`DESKTOP_STARTUP_ID`, `desktop-startup-id`): the caller's
    /// token, or one of ours when a launch image needs one.
    public var startupID: String?
    /// The token the handler answers a reply request with (`SCHEMEBRIDGE_REPLY_TOKEN`, `reply-token`).
    public var replyToken: String?
    /// The object path of the pasteboard the handler was launched for (the `pasteboard` open
    /// option): `SCHEMEBRIDGE_PASTEBOARD_PATH`, `pasteboard-path`. Unguessable, unlike a name.
    public var pasteboardPath: String?
    /// The name of the pasteboard holding a share's data, granted to the target alone
    /// (`SCHEMEBRIDGE_SHARE_PASTEBOARD`, `pasteboard`).
    public var sharePasteboard: String?

    public init(source: String? = nil, activationToken: String? = nil, startupID: String? = nil, replyToken: String? = nil) {
        self.source = source
        self.activationToken = activationToken
        self.startupID = startupID
        self.replyToken = replyToken
    }

    /// The variables the context sets (and that a base environment must not carry over).
    public static let variables = ["SCHEMEBRIDGE_SOURCE", "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID", "SCHEMEBRIDGE_REPLY_TOKEN",
                                   "SCHEMEBRIDGE_PASTEBOARD_PATH", "SCHEMEBRIDGE_SHARE_PASTEBOARD"]

    /// The environment variables for a spawned handler.
    public var environment: [String: String] {
        var env: [String: String] = [:]
        if let source { env["SCHEMEBRIDGE_SOURCE"] = source }
        if let activationToken { env["XDG_ACTIVATION_TOKEN"] = activationToken }
        if let startupID { env["DESKTOP_STARTUP_ID"] = startupID }
        if let replyToken { env["SCHEMEBRIDGE_REPLY_TOKEN"] = replyToken }
        if let pasteboardPath { env["SCHEMEBRIDGE_PASTEBOARD_PATH"] = pasteboardPath }
        if let sharePasteboard { env["SCHEMEBRIDGE_SHARE_PASTEBOARD"] = sharePasteboard }
        return env
    }

    /// The string entries of `platform_data` for `org.freedesktop.Application.Open`.
    public var platformData: [String: String] {
        var data: [String: String] = [:]
        if let source { data["source"] = source }
        if let activationToken { data["activation-token"] = activationToken }
        if let startupID { data["desktop-startup-id"] = startupID }
        if let replyToken { data["reply-token"] = replyToken }
        if let pasteboardPath { data["pasteboard-path"] = pasteboardPath }
        if let sharePasteboard { data["pasteboard"] = sharePasteboard }
        return data
    }

    /// The full environment of `command`: `base`, then the command's own variables, then this
    /// context's.
    public func environment(base: [String: String], command: LaunchCommand) -> [String: String] {
        var env = base
        for (k, v) in command.environment { env[k] = v }
        for (k, v) in environment { env[k] = v }
        return env
    }

    /// The environment handlers start from: the service's own, without what belongs to the
    /// service's activation or to one launch, with the session bus's address.
    public static func baseEnvironment(_ service: [String: String], busAddress: String) -> [String: String] {
        var env = service
        for key in ["DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE"] + variables { env.removeValue(forKey: key) }
        if env["DBUS_SESSION_BUS_ADDRESS"] == nil { env["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        return env
    }

    private static let serial = Atomic<UInt64>(0)

    /// A fresh startup-notification id (`schemebridge-PID-N_TIMEms`) for a launch that came
    /// without an activation token.
    public static func newStartupID() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return "schemebridge-\(getpid())-\(serial.add(1, ordering: .relaxed).newValue)_TIME\(Int(ts.tv_sec) * 1000 + ts.tv_nsec / 1_000_000)"
    }
}
