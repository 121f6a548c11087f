/// What a chooser is told besides the question and the caller: the caller's activation token
/// (its window may take focus with it), a pick's title, a share's items (``ShareQuestion``).
public struct ChooserContext: Sendable, Equatable {
    public var activationToken: String?
    public var title: String?
    public var share: ShareQuestion?
    /// The caller's window (`x11:XID`, `wayland:HANDLE`): the dialog is transient for it.
    public var parentWindow: String?
    /// A file a device sent: the device's name (the dialog says who sent it).
    public var receivedFrom: String?

    public init(activationToken: String? = nil, title: String? = nil, share: ShareQuestion? = nil, parentWindow: String? = nil,
                receivedFrom: String? = nil) {
        self.activationToken = activationToken
        self.title = title
        self.share = share
        self.parentWindow = parentWindow
        self.receivedFrom = receivedFrom
    }
}

/// The chooser port: shows a ``HandlerQuestion`` to the caller's user and returns the answer
/// unchecked (``Broker/settle(_:to:caller:warn:)`` checks and remembers it). The daemon
/// implements it (a chooser program, the share sheet, a `Chooser1` client on the bus).
/// A chooser that cannot be shown throws (`NoChooser`, `RateLimited`) or answers `.failed`.
public protocol ChooserPort: Sendable {
    func choose(_ question: HandlerQuestion, caller: Caller, context: ChooserContext) async throws(OpenFailure) -> ChooserAnswer
}

/// Which flow a decision is for: it says what "nothing decided" means.
public enum DecisionFlow: Sendable, Equatable {
    /// Opening a URL or a document: nothing decided is a URL's default (admission looks it up).
    case open
    /// A share: nothing decided is `NoTarget`.
    case share
    /// A pick: nothing decided is `NoHandler`.
    case pick
}

/// The handler a decision came to once the chooser, if asked, was answered and its pick settled.
public struct SettledHandler: Sendable, Equatable {
    /// The handler (an app, a share target, "Files…"); nil: a URL's default.
    public let id: ChooserTargetID?
    /// Why (nil: the user picked it in the chooser).
    public let reason: HandlerReason?
    /// The token the chooser obtained for this launch when the user chose (nil: none, or no
    /// chooser was shown); ``launchToken(callerToken:)`` is the rule that uses it.
    public let chooserToken: String?

    public init(id: ChooserTargetID?, reason: HandlerReason?, chooserToken: String? = nil) {
        self.id = id
        self.reason = reason
        self.chooserToken = chooserToken
    }

    /// Whether it is a pinned x-callback's handler (admission takes it as pinned, not as named).
    public var pinnedCallback: Bool { reason == .callback }

    /// What ``Broker/settle(_:for:caller:chooser:context:warn:)`` settles `decision` on at once
    /// when it names its handler (nothing to ask; without that generic async call); nil for any
    /// other decision.
    public init?(decided decision: HandlerDecision) {
        guard case .open(let id?, let reason) = decision else { return nil }
        self.init(id: id, reason: reason)
    }
}

extension Broker {
    /// The one ask-and-settle step after every decision (URLs, documents, shares, picks): an
    /// `.open` decision stands (nothing decided is what `flow` says); an `.ask` is put to
    /// `chooser` and its answer settled (checked against the candidates shown, remembered with
    /// "always"; `warn` says why a pick could not be remembered).
    public func settle(_ decision: HandlerDecision, for flow: DecisionFlow, caller: Caller, chooser: some ChooserPort,
                       context: ChooserContext, warn: (String) -> Void) async throws(OpenFailure) -> SettledHandler {
        switch decision {
        case .open(let id?, let reason):
            return SettledHandler(id: id, reason: reason)
        case .open(nil, let reason):
            switch flow {
            case .open: return SettledHandler(id: nil, reason: reason)
            case .share: throw OpenFailure(.noTarget, "nothing accepts the items")
            case .pick: throw OpenFailure(.noHandler, "no provider was decided")
            }
        case .ask(let question):
            let answer = try await chooser.choose(question, caller: caller, context: context)
            return SettledHandler(id: try await settle(answer, to: question, caller: caller, warn: warn), reason: nil, chooserToken: answer.launchToken)
        }
    }
}
