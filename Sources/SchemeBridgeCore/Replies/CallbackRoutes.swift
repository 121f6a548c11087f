import Synchronization

/// The x-callback URLs handed to handlers, each pinned to the entry of the app that asked: when
/// the handler later opens one (as given, or with parameters appended, as x-callback-url allows),
/// it goes to that entry — never to whatever app the scheme resolves to.
///
/// A route belongs to the request's handler: only the process started for it (or one of its
/// descendants, while it runs), or the owner of the bus name activated for it, may use it. The
/// callback URL is no secret (the handler's command line shows it), so anyone else who opens a
/// URL matching a live route is refused — neither the route is used up nor is the URL looked up
/// by scheme, which would hand the real callback's scheme to whoever declares it. A route is used
/// once (the first of a request's callbacks to come back ends them all) and expires; the table
/// is bounded. A handler may open its callback before the service, between starting it and
/// noting its process, has run: a claim of a route whose handler is not recorded yet waits for
/// ``started(_:handler:)`` (or for the routes to go) before it asks who the handler is.
public final class CallbackRoutes: Sendable {
    private struct Route {
        let url: String
        let entryID: String
        let group: UInt64
        let expires: ContinuousClock.Instant
    }
    private struct State {
        /// Scheme → routes (so a lookup scans only the callbacks of one scheme).
        var routes: [String: [Route]] = [:]
        var count = 0
        var nextGroup: UInt64 = 1
        /// The handler each group's request started, once it started.
        var handlers: [UInt64: LaunchedHandler] = [:]
        /// Claims waiting for a group's handler to be recorded, or for its routes to go.
        var startWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    }
    private let state = Mutex(State())
    /// Routes kept at most (oldest dropped first).
    public let limit: Int

    /// What an open of a URL makes of the routes.
    public enum Claim: Sendable, Equatable {
        /// No live route matches: the URL is looked up as usual.
        case none
        /// The opener is the handler: the URL goes to this entry (the route is used up).
        case pinned(entryID: String)
        /// A live route matches but the opener is not its handler: refuse the open.
        case refused
    }

    public init(limit: Int = 4096) { self.limit = limit }

    /// Pins `urls` to `entryID` for `lifetime`; returns their group, to name the handler with
    /// ``started(_:handler:)`` (nil when nothing was pinned).
    @discardableResult
    public func pin(_ urls: [String], to entryID: String, lifetime: Duration) -> UInt64? {
        guard !urls.isEmpty else { return nil }
        let now = ContinuousClock.now
        let (group, released) = state.withLock { s in
            let group = s.nextGroup
            s.nextGroup += 1
            var released: [CheckedContinuation<Void, Never>] = []
            for url in urls {
                guard let scheme = try? SchemeURL(url).scheme.name else { continue }
                if s.count >= limit { released += Self.remove(from: &s) { $0.expires < now } }
                if s.count >= limit, let oldest = s.routes.values.flatMap({ $0 }).min(by: { $0.group < $1.group })?.group {
                    released += Self.remove(from: &s) { $0.group == oldest }
                }
                s.routes[scheme, default: []].append(Route(url: url, entryID: entryID, group: group, expires: now + lifetime))
                s.count += 1
            }
            return (group, released)
        }
        for waiter in released { waiter.resume() }
        return group
    }

    /// The handler of `group`'s request started as `handler`.
    public func started(_ group: UInt64, handler: LaunchedHandler) {
        let waiters = state.withLock { s in
            if Self.holds(s, group) { s.handlers[group] = handler }
            return s.startWaiters.removeValue(forKey: group) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// `group`'s request was never started: its routes go.
    public func drop(_ group: UInt64) {
        let waiters = state.withLock { s in Self.remove(from: &s) { $0.group == group } + (s.startWaiters.removeValue(forKey: group) ?? []) }
        for waiter in waiters { waiter.resume() }
    }

    /// What opening `url` makes of the routes. `isHandler` says whether the opener is a route's
    /// handler (nil: its request never started one, so nobody is); it is asked outside the lock,
    /// newest route first, once the route's handler is recorded (a claim that comes first waits
    /// for it). When it says yes, that route and its siblings are used up.
    public func claim(_ url: String, isHandler: (LaunchedHandler?) async -> Bool) async -> Claim {
        guard let parsed = try? SchemeURL(url) else { return .none }
        return await claim(parsed, isHandler: isHandler)
    }

    /// ``claim(_:isHandler:)`` for a URL parsed already (every open asks: no second parse). No
    /// route held for its scheme: `.none` at once.
    public func claim(_ parsed: SchemeURL, isHandler: (LaunchedHandler?) async -> Bool) async -> Claim {
        let (url, scheme) = (parsed.string, parsed.scheme.name)
        let now = ContinuousClock.now
        let candidates: [(group: UInt64, handler: LaunchedHandler?)] = state.withLock { s in
            (s.routes[scheme] ?? []).reversed().filter { $0.expires >= now && Self.matches(url, $0.url) }.map { ($0.group, s.handlers[$0.group]) }
        }
        guard !candidates.isEmpty else { return .none }
        for candidate in candidates {
            var handler = candidate.handler
            if handler == nil { handler = await startedHandler(candidate.group) }
            guard await isHandler(handler) else { continue }
            let (entry, released) = state.withLock { s in
                let entry = s.routes[scheme]?.first { $0.group == candidate.group }?.entryID
                return (entry, Self.remove(from: &s) { $0.group == candidate.group || $0.expires < now })
            }
            for waiter in released { waiter.resume() }
            if let entry { return .pinned(entryID: entry) }
        }
        return .refused
    }

    /// Routes held now.
    public var count: Int { state.withLock { $0.count } }

    /// `group`'s handler once its start is recorded; nil when its routes go first (drop, the
    /// table's bound, or their expiry: a group that is never started nor dropped cannot hold a
    /// claim longer than its routes live).
    private func startedHandler(_ group: UInt64) async -> LaunchedHandler? {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let (waiting, expiry) = state.withLock { s -> (Bool, ContinuousClock.Instant?) in
                guard s.handlers[group] == nil, Self.holds(s, group) else { return (false, nil) }
                let first = s.startWaiters[group] == nil
                s.startWaiters[group, default: []].append(c)
                let latest = s.routes.values.lazy.flatMap { $0 }.filter { $0.group == group }.map(\.expires).max()
                return (true, first ? latest : nil)
            }
            if !waiting { c.resume() }
            if let expiry { expire(group, at: expiry) }
        }
        return state.withLock { $0.handlers[group] }
    }

    /// At `expiry`, `group`'s routes that have expired go, and with the last of them its waiting
    /// claims. A sleep may end a little before its deadline by the clock read after it: while
    /// claims still wait and a route of the group lives on, it sleeps again until that one expires.
    private func expire(_ group: UInt64, at expiry: ContinuousClock.Instant) {
        Task { [self] in
            var deadline = expiry
            while true {
                try? await Task.sleep(until: deadline, clock: .continuous)
                let now = ContinuousClock.now
                let (released, next) = state.withLock { s -> ([CheckedContinuation<Void, Never>], ContinuousClock.Instant?) in
                    let released = Self.remove(from: &s) { $0.group == group && $0.expires <= now }
                    guard s.startWaiters[group] != nil else { return (released, nil) }
                    return (released, s.routes.values.lazy.flatMap { $0 }.filter { $0.group == group }.map(\.expires).max())
                }
                for waiter in released { waiter.resume() }
                guard let next else { return }
                deadline = max(next, now + .milliseconds(1))
            }
        }
    }

    /// Whether `group` still has routes.
    private static func holds(_ s: State, _ group: UInt64) -> Bool {
        s.routes.values.contains { $0.contains { $0.group == group } }
    }

    /// Removes the routes `gone` says; returns the claims waiting for groups that have no route left.
    private static func remove(from s: inout State, where gone: (Route) -> Bool) -> [CheckedContinuation<Void, Never>] {
        var groups = Set<UInt64>()
        for key in Array(s.routes.keys) {
            let before = s.routes[key]!.count
            s.routes[key]!.removeAll { route in
                if gone(route) { groups.insert(route.group); return true }
                return false
            }
            s.count -= before - s.routes[key]!.count
            if s.routes[key]!.isEmpty { s.routes[key] = nil }
        }
        guard !groups.isEmpty else { return [] }
        let left = Set(s.routes.values.lazy.flatMap { $0 }.map(\.group))
        var released: [CheckedContinuation<Void, Never>] = []
        for g in groups where !left.contains(g) {
            s.handlers[g] = nil
            released += s.startWaiters.removeValue(forKey: g) ?? []
        }
        return released
    }

    /// `url` is `callback`, or `callback` with parameters appended.
    static func matches(_ url: String, _ callback: String) -> Bool {
        guard url.hasPrefix(callback) else { return false }
        let rest = url.utf8.dropFirst(callback.utf8.count)
        guard let next = rest.first else { return true }
        return next == UInt8(ascii: "?") || next == UInt8(ascii: "&") || (next == UInt8(ascii: "#"))
    }
}
