/// One rule of `X-SchemeBridge-AppLinks-Paths=`: a pattern over the URL's path (as it is in the
/// URL, %-escapes and all; the query and fragment are not part of it), `*` matching any run of
/// characters (`/` included), everything else itself; `!` before it excludes what it matches.
public struct AppLinkPathRule: Sendable, Hashable, CustomStringConvertible {
    /// The pattern's bytes (it starts with `/`).
    public let pattern: String
    /// `!`: a path it matches is not the app's.
    public let excludes: Bool

    /// Parses one declared value; nil unless it starts with `/` (after an optional `!`) and has
    /// no control characters or spaces.
    public init?(_ text: some StringProtocol) {
        var t = Substring(text)
        excludes = t.hasPrefix("!")
        if excludes { t = t.dropFirst() }
        guard t.hasPrefix("/"), t.utf8.count <= 1024, !t.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        pattern = String(t)
    }

    /// Whether the pattern matches `path` whole.
    public func matches(_ path: some StringProtocol) -> Bool {
        Self.glob(Array(pattern.utf8)[...], Array(path.utf8)[...])
    }

    /// `*`-only globbing, linear in practice: the last `*` seen is the one backtracked to.
    static func glob(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        var pi = p.startIndex, si = s.startIndex
        var star: Int? = nil, mark = s.startIndex
        while si < s.endIndex {
            if pi < p.endIndex, p[pi] == UInt8(ascii: "*") {
                star = pi; mark = si; pi += 1
            } else if pi < p.endIndex, p[pi] == s[si] {
                pi += 1; si += 1
            } else if let st = star {
                pi = st + 1; mark += 1; si = mark
            } else {
                return false
            }
        }
        while pi < p.endIndex, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.endIndex
    }

    public var description: String { (excludes ? "!" : "") + pattern }
}

/// What an entry claims: `X-SchemeBridge-AppLinks=` (hosts) and `X-SchemeBridge-AppLinks-Paths=`
/// (which paths of them). Values that are no host or no path pattern are skipped (``skipped``
/// says which); at most ``maximumHosts`` hosts and ``maximumPathRules`` path rules are kept.
public struct AppLinkDeclaration: Sendable, Equatable {
    /// The key naming the hosts.
    public static let hostsKey = "X-SchemeBridge-AppLinks"
    /// The key naming the paths.
    public static let pathsKey = "X-SchemeBridge-AppLinks-Paths"
    public static let maximumHosts = 64
    public static let maximumPathRules = 64

    /// The declared hosts, in file order, without duplicates.
    public let hosts: [AppLinkHostPattern]
    /// The path rules, in file order; empty: every path.
    public let paths: [AppLinkPathRule]
    /// Declared values that were not used.
    public let skipped: [String]

    /// Parses the two values (`hosts`: the `X-SchemeBridge-AppLinks` value, unescaped).
    public init(hosts: String, paths: String?) {
        var h: [AppLinkHostPattern] = [], p: [AppLinkPathRule] = [], skipped: [String] = []
        for v in Self.list(hosts) {
            if let pattern = AppLinkHostPattern(v), h.count < Self.maximumHosts { if !h.contains(pattern) { h.append(pattern) } } else { skipped.append(String(v.prefix(80))) }
        }
        for v in Self.list(paths ?? "") {
            if let rule = AppLinkPathRule(v), p.count < Self.maximumPathRules { p.append(rule) } else { skipped.append(String(v.prefix(80))) }
        }
        self.hosts = h
        self.paths = p
        self.skipped = skipped
    }

    /// The declaration of `entry`; nil when it declares no usable host.
    public init?(_ entry: DesktopEntry) {
        guard let hosts = entry.extensionKeys[Self.hostsKey] else { return nil }
        self.init(hosts: hosts, paths: entry.extensionKeys[Self.pathsKey])
        if self.hosts.isEmpty { return nil }
    }

    /// The declared pattern that covers `host` (normalised), the first in file order.
    public func pattern(covering host: String) -> AppLinkHostPattern? {
        hosts.first { $0.matches(host) }
    }

    /// Whether `path` is the app's: the first rule that matches decides (`!` no, else yes); when
    /// none matches, yes only if every rule is an exclusion (`!/help/*;` alone: all but help);
    /// no rules: every path.
    public func admits(path: some StringProtocol) -> Bool {
        let p = path.isEmpty ? "/" : String(path)
        for rule in paths where rule.matches(p) { return !rule.excludes }
        return paths.allSatisfy(\.excludes)
    }

    private static func list(_ value: String) -> [Substring] {
        value.split(separator: ";").map { $0.drop { $0 == " " } }.filter { !$0.isEmpty }
    }
}
