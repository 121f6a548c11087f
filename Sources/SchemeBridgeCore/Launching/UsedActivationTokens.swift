import Synchronization

/// The activation tokens SchemeBridge has handed to a started handler: a token is good once
/// (`xdg_activation_v1`: the compositor forgets it when a window activates with it; an X11
/// startup id ends with its window), so one handed to a launch is not handed to another. A
/// handler started with the caller's token that opens its x-callback URL with the environment
/// it inherited (`schemebridge open` reads `$XDG_ACTIVATION_TOKEN`) passes that used token on:
/// the callback's launch gets none instead, and a handler that wants the caller's window to
/// take focus hands a fresh token of its own (from its compositor). The most recent
/// ``capacity`` tokens are kept.
public final class UsedActivationTokens: Sendable {
    /// The most tokens remembered (the oldest is forgotten first).
    public let capacity: Int
    private let tokens = Mutex<(set: Set<String>, order: [String])>((set: [], order: []))

    public init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    /// Remembers `token` as handed to a started handler (nothing for nil).
    public func record(_ token: String?) {
        guard let token else { return }
        tokens.withLock { state in
            guard state.set.insert(token).inserted else { return }
            state.order.append(token)
            if state.order.count > capacity { state.set.remove(state.order.removeFirst()) }
        }
    }

    /// Whether `token` was handed to a started handler already.
    public func contains(_ token: String) -> Bool { tokens.withLock { $0.set.contains(token) } }

    /// `token` when it may be handed to a launch: not nil, not used already.
    public func unused(_ token: String?) -> String? {
        guard let token, !contains(token) else { return nil }
        return token
    }
}
