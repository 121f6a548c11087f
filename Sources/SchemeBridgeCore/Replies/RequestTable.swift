import Synchronization

/// The requests waiting for a handler's reply (`OpenURLWithReply`): who asked, which handler
/// was started, and the token it answers with. Each request is taken out exactly once — by
/// the reply, the caller's `Close`, the handler's exit, the timeout, or the caller leaving — so
/// exactly one outcome is ever reported. Bounded per caller and in all.
public final class RequestTable: Sendable {
    /// The process a request's handler runs as (``LaunchedHandler``).
    public typealias Handler = LaunchedHandler

    /// One pending request.
    public struct Request: Sendable {
        public let id: UInt64
        /// The caller's unique bus name (the only one told the outcome).
        public let caller: String
        /// The handler's id (a pick's provider, set once the user picked it; nil until then, and
        /// for a share, whose target is named when it is decided: ``ReplyRequests/sharing(_:target:)``).
        public fileprivate(set) var handlerID: ChooserTargetID?
        /// The secret the handler answers with.
        public let token: String
        /// The activation tokens the handler was started with (``LaunchContext/activationToken``,
        /// ``LaunchContext/startupID``): used ones, never handed back (``ActivationToken/handedBack(_:launchedWith:)``).
        public let launchTokens: Set<String>
        /// Set once the handler started.
        public fileprivate(set) var handler: Handler?
        /// What the handler is asked for: a reply, or documents (a pick).
        public let purpose: Purpose

        /// How messages name the handler: its id; a share's target before it is decided; nothing
        /// for a pick's provider before the user picked it.
        public var handlerLabel: String { handlerID?.text ?? (purpose == .reply ? "the share's target" : "") }
    }

    /// What a request waits for.
    public enum Purpose: Sendable, Equatable {
        /// A `Reply` (`OpenURLWithReply`).
        case reply
        /// Documents of these types (`PickDocument`): `ProvideDocuments`, or `Reply` to cancel or fail.
        case pick(PickSubject, multiple: Bool)
    }

    /// Why a reply is refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// Unknown or used token.
        case noSuchRequest
        /// The token is right but the sender is not the handler.
        case notTheHandler(label: String)
    }

    private struct State {
        var byID: [UInt64: Request] = [:]
        var byToken: [String: UInt64] = [:]
        var perCaller: [String: Int] = [:]
        var nextID: UInt64 = 1
    }
    private let state = Mutex(State())
    /// Requests one caller may have pending, and in all.
    public let perCallerLimit: Int
    public let totalLimit: Int

    public init(perCallerLimit: Int = 256, totalLimit: Int = 8192) {
        self.perCallerLimit = perCallerLimit
        self.totalLimit = totalLimit
    }

    /// A new request for `caller`, with a fresh token, waiting for `purpose`; its handler will be
    /// started with `launchTokens`.
    public func open(caller: String, handlerID: ChooserTargetID?, launchTokens: Set<String> = [], purpose: Purpose = .reply) throws(OpenFailure) -> Request {
        let token = ReplyToken.make()
        let made: Request? = state.withLock { s in
            guard s.byID.count < totalLimit, s.perCaller[caller, default: 0] < perCallerLimit else { return nil }
            let r = Request(id: s.nextID, caller: caller, handlerID: handlerID, token: token, launchTokens: launchTokens, handler: nil, purpose: purpose)
            s.nextID += 1
            s.byID[r.id] = r
            s.byToken[token] = r.id
            s.perCaller[caller, default: 0] += 1
            return r
        }
        guard let made else {
            throw OpenFailure(.rateLimited, "too many requests are waiting for a reply; close some (Close) or wait for their responses")
        }
        return made
    }

    /// Records the handler `id`'s launch started.
    public func started(_ id: UInt64, handler: Handler) {
        state.withLock { s in s.byID[id]?.handler = handler }
    }

    /// Names the handler of request `id` (a pick's provider, once the sheet answered).
    public func assign(_ id: UInt64, handlerID: ChooserTargetID) {
        state.withLock { s in s.byID[id]?.handlerID = handlerID }
    }

    /// The pending request `id`.
    public func request(_ id: UInt64) -> Request? { state.withLock { $0.byID[id] } }

    /// The pending request `token` answers (nothing is taken).
    public func request(token: String) -> Request? { state.withLock { s in s.byToken[token].flatMap { s.byID[$0] } } }

    /// Takes request `id` out (nil when it is already done).
    @discardableResult
    public func take(_ id: UInt64) -> Request? {
        state.withLock { s in Self.remove(id, from: &s) }
    }

    /// Takes out the request `token` answers, if `isHandler` says the sender is its handler.
    /// `isHandler` is asked outside the lock (it may read /proc).
    public func takeForReply(token: String, isHandler: (Request) -> Bool) -> Result<Request, Refusal> {
        guard let request = state.withLock({ s in s.byToken[token].flatMap { s.byID[$0] } }) else { return .failure(.noSuchRequest) }
        guard isHandler(request) else { return .failure(.notTheHandler(label: request.handlerLabel)) }
        guard let taken = take(request.id) else { return .failure(.noSuchRequest) }
        return .success(taken)
    }

    /// Takes out every request of `caller` (it left the bus: nobody to tell).
    public func takeAll(caller: String) -> [Request] {
        state.withLock { s in
            let ids = s.byID.values.filter { $0.caller == caller }.map(\.id)
            return ids.compactMap { Self.remove($0, from: &s) }
        }
    }

    /// Takes out every request whose activated handler was `owner` (it left the bus).
    public func takeAll(handlerOwner owner: String) -> [Request] {
        state.withLock { s in
            let ids = s.byID.values.filter { if case .activated(owner, _)? = $0.handler { return true } else { return false } }.map(\.id)
            return ids.compactMap { Self.remove($0, from: &s) }
        }
    }

    /// Requests pending now.
    public var count: Int { state.withLock { $0.byID.count } }

    private static func remove(_ id: UInt64, from s: inout State) -> Request? {
        guard let r = s.byID.removeValue(forKey: id) else { return nil }
        s.byToken.removeValue(forKey: r.token)
        let left = s.perCaller[r.caller, default: 1] - 1
        s.perCaller[r.caller] = left > 0 ? left : nil
        return r
    }
}
