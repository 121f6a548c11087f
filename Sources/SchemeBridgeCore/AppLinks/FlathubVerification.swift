import Glibc

/// Flathub's verified-website data (issue 41): the second source of evidence for a Flatpak app.
///
/// What it is: Flathub marks an app verified by website when the app's developer proved control of
/// a domain — Flathub fetched `https://DOMAIN/.well-known/org.flathub.VerifiedApps.txt` and found
/// the app's id in it — and the id is that domain reversed (`org.example.Todo` for `example.org`,
/// `io.github.user.App` for `user.github.io`). Flathub publishes it in its AppStream data as
/// `<custom><value key="flathub::verification::verified">true</value>`, `…::method` `website`,
/// `…::website` the domain, `…::timestamp` when; flatpak keeps a remote's data on disk
/// (`<installation>/appstream/<remote>/<arch>/active/appstream.xml`), pulled and signature-checked.
///
/// What it proves, and only that: whoever controlled DOMAIN's web site when Flathub checked
/// listed this app id — the same statement `assetlinks.json` makes, made once, to Flathub. It
/// says nothing of paths, is not re-checked here (as old as the remote's data), and counts only
/// for the host the app id names, from a system installation's data (the user's programs cannot
/// write it) and for that installation's own exported entry.
public struct FlathubVerification: Sendable, Equatable {
    /// The app id (a Flatpak app id).
    public var appID: AppID
    /// The verified domain (normalised).
    public var website: String
    /// When Flathub checked it (seconds since the epoch; 0 when not given).
    public var timestamp: Int64
    /// The remote whose data says so.
    public var remote: String
    /// The file read.
    public var file: String

    /// An evidence `source` from Flathub's data starts so: `flathub-appstream:REMOTE:FILE`.
    public static let sourcePrefix = "flathub-appstream:"
    /// The largest AppStream file read (Flathub's is tens of MiB).
    public static let maximumBytes = 256 << 20

    /// The host an app id names: its parts but the last, reversed (`org.example.Todo` → `example.org`).
    public static func host(ofAppID appID: AppID) -> String? {
        let parts = appID.text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        return AppLinkHost.normalized(parts.dropLast().reversed().joined(separator: "."))
    }

    /// The website verifications in an AppStream document, by app id: components whose
    /// `flathub::verification::verified` is `true` and `method` is `website`, with a website that
    /// is a host name. Read without a full XML parser: the components are found by their tags,
    /// values by their keys; entities in values are decoded.
    public static func parse(_ bytes: [UInt8], remote: String, file: String) -> [String: FlathubVerification] {
        let marker = Array("flathub::verification::verified".utf8)
        let open = Array("<component".utf8), close = Array("</component>".utf8)
        var out: [String: FlathubVerification] = [:]
        var from = bytes.startIndex
        while let hit = bytes[from...].firstRange(of: marker) {
            // The component around the marker.
            let start = lastStart(of: open, in: bytes, before: hit.lowerBound)
            let end = bytes[hit.upperBound...].firstRange(of: close)?.upperBound ?? bytes.endIndex
            from = end
            let block = String(decoding: bytes[start..<end], as: UTF8.self)
            guard value("verified", in: block) == "true", value("method", in: block) == "website",
                  let text = element("id", in: block), let id = AppID(text),
                  let website = value("website", in: block).flatMap(AppLinkHost.normalized) else { continue }
            out[text] = FlathubVerification(appID: id, website: website, timestamp: value("timestamp", in: block).flatMap { Int64($0) } ?? 0,
                                          remote: remote, file: file)
        }
        return out
    }

    /// Where the last `pattern` before `index` starts (the document's start when none): scanned
    /// backwards, so each component costs its own length.
    static func lastStart(of pattern: [UInt8], in bytes: [UInt8], before index: Int) -> Int {
        var i = index - pattern.count
        while i >= bytes.startIndex {
            if bytes[i] == pattern[0] && bytes[i..<i + pattern.count].elementsEqual(pattern) { return i }
            i -= 1
        }
        return bytes.startIndex
    }

    /// The text of `<value key="flathub::verification::KEY">…</value>` in `block`.
    static func value(_ key: String, in block: String) -> String? {
        for quote in ["\"", "'"] {
            let tag = "key=\(quote)flathub::verification::\(key)\(quote)"
            guard let r = block.firstRange(of: tag), let gt = block[r.upperBound...].firstIndex(of: ">"),
                  let end = block[gt...].firstRange(of: "</value>") else { continue }
            return decoded(block[block.index(after: gt)..<end.lowerBound])
        }
        return nil
    }

    /// The text of the first `<NAME>…</NAME>` in `block` (the component's own `<id>` comes first).
    static func element(_ name: String, in block: String) -> String? {
        guard let r = block.firstRange(of: "<\(name)>"), let end = block[r.upperBound...].firstRange(of: "</\(name)>") else { return nil }
        return decoded(block[r.upperBound..<end.lowerBound])
    }

    static func decoded(_ text: Substring) -> String {
        var s = String(text).trimmingASCIIWhitespace
        for (entity, ch) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            s = s.replacing(entity, with: ch)
        }
        return s
    }

    /// The AppStream files of the Flatpak installation at `installation` (`/var/lib/flatpak`):
    /// `appstream/<remote>/<arch>/active/appstream.xml`, by remote.
    public static func files(installation: String) -> [(remote: String, path: String)] {
        var out: [(String, String)] = []
        let base = installation + "/appstream"
        func directories(_ path: String) -> [String] {
            ((try? FileSystem.list(path))?.entries ?? []).map(\.name).filter { FileSystem.info(path + "/" + $0).kind == .directory }.sorted()
        }
        for remote in directories(base) {
            for arch in directories(base + "/" + remote) {
                let path = base + "/" + remote + "/" + arch + "/active/appstream.xml"
                if FileSystem.info(path).kind == .file { out.append((remote, path)) }
            }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// The installation an exported entry's applications directory belongs to
    /// (`…/exports/share/applications` → `…`); nil for any other directory.
    public static func installation(ofApplicationsDirectory dir: String) -> String? {
        let suffix = "/exports/share/applications"
        var d = dir
        while d.hasSuffix("/") && d.count > 1 { d.removeLast() }
        guard d.hasSuffix(suffix), d.count > suffix.count else { return nil }
        return String(d.dropLast(suffix.count))
    }
}

extension String {
    fileprivate var trimmingASCIIWhitespace: String {
        let ws: Set<Character> = [" ", "\n", "\t", "\r"]
        return String(drop { ws.contains($0) }.reversed().drop { ws.contains($0) }.reversed())
    }
}
