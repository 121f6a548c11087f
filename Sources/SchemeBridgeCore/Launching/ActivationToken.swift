/// The rules for activation tokens: the Wayland `xdg_activation_v1` token
/// (`XDG_ACTIVATION_TOKEN`) or X11 startup-notification id (`DESKTOP_STARTUP_ID`) that lets a
/// window take focus. A token travels with a request: from the caller to the handler it starts
/// (``LaunchContext``), from the handler back to the caller (`Reply`'s and `ProvideDocuments`'
/// `activation-token` result, an x-callback URL's launch), and to the windows SchemeBridge
/// shows for the caller (the chooser, the share sheet, the launch image), which ``helperEnvironment(_:)``
/// starts with it.
public enum ActivationToken {
    /// The longest token accepted, in bytes (compositors' tokens are a few dozen bytes; X11
    /// startup ids about a hundred).
    public static let maximumByteCount = 4096

    /// Whether `token` may be handed on: not empty, at most ``maximumByteCount`` bytes, and no
    /// control characters (it goes into environment variables and X11 properties).
    public static func isValid(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= maximumByteCount && !token.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// Why `token` is refused, for a person (nil when ``isValid(_:)``).
    public static func problem(_ token: String) -> String? {
        if token.isEmpty { return "activation-token is empty (leave it out instead)" }
        if token.utf8.count > maximumByteCount { return "activation-token is longer than \(maximumByteCount) bytes" }
        if !isValid(token) { return "activation-token contains control characters" }
        return nil
    }

    /// Whether a handler's answer may hand `token` back to the caller: not when it is one the
    /// handler was started with (`launchedWith`) — that was the caller's own token, or the startup
    /// id SchemeBridge made for the launch image, and it was used when the handler's window came
    /// up (a handler that merely passes its environment on, as `schemebridge reply` does, gives
    /// no focus back). Only a token the handler got anew from its compositor is handed back.
    public static func handedBack(_ token: String, launchedWith: Set<String>) -> Bool {
        isValid(token) && !launchedWith.contains(token)
    }

    /// The environment of a helper program SchemeBridge starts for a caller (the chooser, the
    /// share sheet, the launch-image splash): the caller's token as `XDG_ACTIVATION_TOKEN`
    /// (Wayland) and `DESKTOP_STARTUP_ID` (X11), so the helper's window may take focus as the
    /// caller's own would. Empty without a (valid) token: a helper never inherits another
    /// launch's token (the base environment has none, ``LaunchContext/baseEnvironment(_:busAddress:)``).
    public static func helperEnvironment(_ token: String?) -> [String: String] {
        guard let token, isValid(token) else { return [:] }
        return LaunchContext(activationToken: token, startupID: token).environment
    }

    /// `base` with ``helperEnvironment(_:)`` laid over it.
    public static func helperEnvironment(_ token: String?, base: [String: String]) -> [String: String] {
        base.merging(helperEnvironment(token)) { _, new in new }
    }
}
