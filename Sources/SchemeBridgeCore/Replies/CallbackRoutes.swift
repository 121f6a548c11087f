import Synchronization

/// The x-callback URLs handed to handlers, each pinned to the entry of the app that asked: when a
/// handler later opens one (as given, or with parameters appended, as x-callback-url allows), it
/// goes to that entry — never to whatever app the scheme resolves to. A route is used once (the
/// first of a request's callbacks to come back ends them all) and expires; the table is bounded.
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
    }
    private let state = Mutex(State())
    /// Routes kept at most (oldest dropped first).
    public let limit: Int

    public init(limit: Int = 4096) { self.limit = limit }

    /// Pins `urls` to `entryID` for `lifetime`.
    public func pin(_ urls: [String], to entryID: String, lifetime: Duration) {
        guard !urls.isEmpty else { return }
        let now = ContinuousClock.now
        state.withLock { s in
            let group = s.nextGroup
            s.nextGroup += 1
            for url in urls {
                guard let scheme = try? SchemeURL(url).scheme.name else { continue }
                if s.count >= limit { Self.dropExpired(&s, now: now) }
                if s.count >= limit, let oldest = s.routes.keys.first { s.count -= s.routes.removeValue(forKey: oldest)?.count ?? 0 }
                s.routes[scheme, default: []].append(Route(url: url, entryID: entryID, group: group, expires: now + lifetime))
                s.count += 1
            }
        }
    }

    /// The entry `url` is pinned to, if it is (or extends) a callback handed out; the route and
    /// its siblings are used up.
    public func take(_ url: String) -> String? {
        guard let scheme = try? SchemeURL(url).scheme.name else { return nil }
        let now = ContinuousClock.now
        return state.withLock { s in
            guard let routes = s.routes[scheme],
                  let route = routes.last(where: { $0.expires >= now && Self.matches(url, $0.url) }) else { return nil }
            for key in Array(s.routes.keys) {
                let before = s.routes[key]!.count
                s.routes[key]!.removeAll { $0.group == route.group || $0.expires < now }
                s.count -= before - s.routes[key]!.count
                if s.routes[key]!.isEmpty { s.routes[key] = nil }
            }
            return route.entryID
        }
    }

    /// Routes held now.
    public var count: Int { state.withLock { $0.count } }

    private static func dropExpired(_ s: inout State, now: ContinuousClock.Instant) {
        for key in Array(s.routes.keys) {
            let before = s.routes[key]!.count
            s.routes[key]!.removeAll { $0.expires < now }
            s.count -= before - s.routes[key]!.count
            if s.routes[key]!.isEmpty { s.routes[key] = nil }
        }
    }

    /// `url` is `callback`, or `callback` with parameters appended.
    static func matches(_ url: String, _ callback: String) -> Bool {
        guard url.hasPrefix(callback) else { return false }
        let rest = url.utf8.dropFirst(callback.utf8.count)
        guard let next = rest.first else { return true }
        return next == UInt8(ascii: "?") || next == UInt8(ascii: "&") || (next == UInt8(ascii: "#"))
    }
}
