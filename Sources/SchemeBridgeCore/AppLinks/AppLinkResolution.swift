/// How an app holds a link's host (issue 41).
public enum AppLinkState: String, Sendable, Equatable, CaseIterable {
    /// The host's `assetlinks.json` names the app, and its entry is one the user's programs
    /// cannot write.
    case verified
    /// The user chose the app for the host (`schemebridge links set HOST APP`).
    case selected
    /// No app holds it: it goes to the browser.
    case none
}

/// An https URL split as app links need it: the host (normalised) and the path (as written,
/// `/` when empty). Only `https` URLs on the default port are app links.
public struct AppLinkURL: Sendable, Equatable {
    public let host: String
    public let path: String

    /// nil when `url` is not `https://HOST[:443]/…` with a DNS host. Read as bytes (every
    /// delimiter is ASCII): no character is formed on the way.
    public init?(_ url: SchemeURL) {
        guard url.scheme.name == "https" else { return nil }
        let s = url.string.utf8
        let afterScheme = s.index(s.startIndex, offsetBy: 6)  // "https:"
        guard s[afterScheme...].starts(with: "//".utf8) else { return nil }
        let authorityStart = s.index(afterScheme, offsetBy: 2)
        let authorityEnd = s[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? s.endIndex
        var hostStart = authorityStart, hostEnd = authorityEnd
        if let at = s[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = s.index(after: at) }
        if let colon = s[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) {
            let port = s[s.index(after: colon)..<authorityEnd]
            guard port.isEmpty || port.elementsEqual("443".utf8) else { return nil }
            hostEnd = colon
        }
        guard let host = AppLinkHost.normalized(Self.percentDecoded(Substring(s[hostStart..<hostEnd]))) else { return nil }
        self.host = host
        let pathEnd = s[authorityEnd...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? s.endIndex
        self.path = authorityEnd == pathEnd ? "/" : String(Substring(s[authorityEnd..<pathEnd]))
    }

    /// A host may be %-encoded (`b%C3%BCcher.example`); decoded before IDNA.
    static func percentDecoded(_ text: Substring) -> Substring {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "%"), bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
                out.append(v); bytes = bytes.dropFirst(2)
            } else { out.append(b) }
        }
        return Substring(String(decoding: out, as: UTF8.self))
    }
}

/// The answer for one link: which app holds it and how, and what that rests on.
public struct AppLinkResolution: Sendable, Hashable {
    /// The link's host (normalised), `""` when the URL is no app link.
    public var host: String
    /// The app that holds the link (a desktop id), nil when none.
    public var app: DesktopID?
    /// How it holds it.
    public var state: AppLinkState
    /// What the answer rests on: the record of the host's file (nil when never fetched).
    public var record: AppLinkRecord?
    /// Every app whose entry claims the link (host and path), by desktop id.
    public var claimants: [DesktopID]
    /// In words: why this app, or why none.
    public var reason: String
}
