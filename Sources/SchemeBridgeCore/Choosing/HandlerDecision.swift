/// What ``Broker/decide(_:requested:ask:caller:)`` says about an open: the handler, or the
/// question to put to the user.
public enum HandlerDecision: Sendable, Equatable {
    /// Open with this handler, for this reason. Nil for a URL opened by its scheme's default,
    /// which admission looks up and checks (reserved schemes, no handler).
    case open(ChooserTargetID?, HandlerReason)
    /// Show a chooser (`ask`); its answer goes to ``Broker/settle(_:to:caller:warn:)``.
    case ask(HandlerQuestion)

    /// The handler decided, nil when it is a URL's default or a question.
    public var handler: ChooserTargetID? {
        if case .open(let id, _) = self { return id }
        return nil
    }
}

/// Why a handler was decided, in the order of precedence.
public enum HandlerReason: Sendable, Equatable {
    /// The caller named it (the `handler` option).
    case requested
    /// An x-callback URL handed to a request's handler comes back to the app that asked
    /// (``CallbackRoutes``); admission then takes it as pinned.
    case callback
    /// The caller's user chose it with "always".
    case remembered
    /// A `[Routes]` line names it for the caller.
    case route(callerPattern: String)
    /// It holds the https link (`verified` or `selected`: ``AppLinks``).
    case appLink
    /// The default: for a URL, its scheme's (looked up by admission); for a document, the first
    /// eligible handler of the first type along its chain that has one.
    case byDefault
}

/// A chooser to show: the subject (a scheme or a content type) and its candidates, default first.
public struct HandlerQuestion: Sendable, Equatable {
    /// The scheme or the content type asked about (what a remembered pick is keyed by).
    public let subject: String
    /// The eligible handlers that admit the caller, default first.
    public let candidates: [ChooserCandidate]

    public init(subject: String, candidates: [ChooserCandidate]) {
        self.subject = subject
        self.candidates = candidates
    }
}
