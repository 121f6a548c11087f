/// `[AppLinks]` of the config file (`man schemebridge-config`):
///
/// ```ini
/// [AppLinks]
/// # extra trust anchors (PEM) for hosts on a private network, beside the system's
/// CAFile=/etc/ssl/private-ca.pem
/// # where to reach a host instead of asking DNS (as curl's --connect-to): HOST=ADDRESS:PORT;…
/// Resolve=intranet.example=10.0.0.5:8443;
/// # seconds a fetch may take in all (1–60)
/// Timeout=10
/// ```
public struct AppLinkConfig: Sendable, Equatable {
    /// `CAFile`: a PEM file of extra trust anchors, or nil for the system's alone.
    public var caFile: String?
    /// `Resolve`: host (normalised) → `ADDRESS:PORT` to connect to for it.
    public var resolve: [String: String] = [:]
    /// `Timeout`: seconds a whole fetch may take (connecting takes at most half of it).
    public var timeout = 10

    public init() {}

    /// The keys of the group.
    public static let keys: Set<String> = ["CAFile", "Resolve", "Timeout"]

    /// Reads the group over `base`; what is wrong is skipped with a warning.
    static func parse(_ g: KeyFile.Group, path: String, over base: AppLinkConfig, warnings: inout [String]) -> AppLinkConfig {
        var c = base
        for e in g.entries where !keys.contains(e.key) {
            warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
        }
        if let file = g.string("CAFile") {
            if file.isEmpty { c.caFile = nil } else if file.hasPrefix("/") { c.caFile = file } else {
                warnings.append("\(path): CAFile=\(file.prefix(80)) is not an absolute path; ignored")
            }
        }
        if let list = g.stringList("Resolve") {
            var map: [String: String] = [:]
            for item in list where !item.isEmpty {
                guard let eq = item.firstIndex(of: "="), let host = AppLinkHost.normalized(item[..<eq]),
                      let target = Self.addressAndPort(item[item.index(after: eq)...]) else {
                    warnings.append("\(path): Resolve item '\(item.prefix(80))' is not HOST=ADDRESS:PORT; ignored")
                    continue
                }
                map[host] = target
            }
            c.resolve = map
        }
        if let text = g.string("Timeout") {
            if let v = Int(text), (1...60).contains(v) { c.timeout = v } else {
                warnings.append("\(path): Timeout=\(text.prefix(40)) is not a number of seconds from 1 to 60; ignored")
            }
        }
        return c
    }

    /// `ADDRESS:PORT` checked: an IPv4 address, `[IPv6]` or a host name, and a port 1–65535.
    static func addressAndPort(_ text: Substring) -> String? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        let address = text[..<colon]
        if address.hasPrefix("[") && address.hasSuffix("]") {
            let inner = address.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            guard !address.isEmpty, address.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") })
                    || AppLinkHost.normalized(address) != nil else { return nil }
        }
        return String(text)
    }
}
