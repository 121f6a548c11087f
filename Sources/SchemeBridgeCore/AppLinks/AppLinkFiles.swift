import Glibc

/// The records of fetched hosts, in the user's cache directory
/// (`$XDG_CACHE_HOME/schemebridge/applinks`, a key file: one `[HOST]` group a host). Lost or
/// damaged, it costs a fetch again: nothing in it is the user's choice.
enum AppLinkCacheFile {
    static func path(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? "/"
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? XDGDirectories.join(home, ".cache")
        return XDGDirectories.join(cache, "schemebridge/applinks")
    }

    static func encode(_ records: [String: AppLinkRecord]) -> [UInt8] {
        var s = "# SchemeBridge app-link verification results (a cache; safe to delete)\n"
        for host in records.keys.sorted() {
            let r = records[host]!
            s += "[\(host)]\nChecked=\(r.checked)\nExpires=\(r.expires)\nApps=\(r.apps.map { clean($0) + ";" }.joined())\n"
            if let f = r.failure { s += "Failure=\(clean(f))\n" }
            s += "Source=\(clean(r.source))\nAddress=\(clean(r.address))\nStatus=\(r.status)\nFailures=\(r.failures)\n"
            s += "EndorsedUntil=\(r.endorsedUntil)\nTransient=\(r.transient)\n"
        }
        return Array(s.utf8)
    }

    static func decode(_ bytes: [UInt8], path: String) -> [String: AppLinkRecord] {
        guard let file = try? KeyFile(bytes: bytes, path: path) else { return [:] }
        var records: [String: AppLinkRecord] = [:]
        for g in file.groups {
            guard let host = AppLinkHost.normalized(g.name), host == g.name,
                  let checked = g.string("Checked").flatMap({ Int64($0) }), let expires = g.string("Expires").flatMap({ Int64($0) }) else { continue }
            records[host] = AppLinkRecord(host: host, checked: checked, expires: expires,
                                          apps: (g.stringList("Apps") ?? []).filter(AssetLinks.isAppID),
                                          failure: g.string("Failure"), source: g.string("Source") ?? "", address: g.string("Address") ?? "",
                                          status: g.string("Status").flatMap { Int($0) } ?? 0, failures: g.string("Failures").flatMap { Int($0) } ?? 0,
                                          endorsedUntil: g.string("EndorsedUntil").flatMap { Int64($0) }, transient: g.boolean("Transient") ?? false)
        }
        return records
    }

    /// Text safe as a key-file value: control characters, `\` and `;` (in lists) become spaces.
    static func clean(_ text: String) -> String {
        String(decoding: text.utf8.prefix(512).map { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: ";") ? 0x20 : $0 }, as: UTF8.self)
    }
}

/// The user's choices (`schemebridge links set HOST APP`), in
/// `$XDG_CONFIG_HOME/schemebridge/applinks`: `[Selected]` `HOST=DESKTOP_ID`.
enum AppLinkSelectionFile {
    static func path(directories: XDGDirectories) -> String {
        XDGDirectories.join(directories.configHome, "schemebridge/applinks")
    }

    static func encode(_ selections: [String: String]) -> [UInt8] {
        var s = "# The apps the user chose for hosts: schemebridge links set HOST APP\n[Selected]\n"
        for host in selections.keys.sorted() { s += "\(host)=\(AppLinkCacheFile.clean(selections[host]!))\n" }
        return Array(s.utf8)
    }

    static func decode(_ bytes: [UInt8], path: String) -> [String: String] {
        guard let file = try? KeyFile(bytes: bytes, path: path), let g = file.group("Selected") else { return [:] }
        var out: [String: String] = [:]
        for e in g.entries {
            guard let host = AppLinkHost.normalized(e.key), let id = g.string(e.key), id.hasSuffix(".desktop") else { continue }
            out[host] = id
        }
        return out
    }
}
