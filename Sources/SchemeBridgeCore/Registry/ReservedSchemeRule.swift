/// The reserved-scheme rule of the registry's resolution: for a reserved scheme
/// (``Policy/isReserved(_:in:)``: `https`, `mailto`, …), the `mimeapps.list` files (plain and
/// desktop-specific) of applications directories the user's programs can write — not protected,
/// see ``TrustedDirectories`` — count for nothing: their added and removed associations and their
/// defaults are ignored. Any program of the user can write
/// `~/.local/share/applications/mimeapps.list`; without this rule it could take the browser off
/// `https`. The config-dir lists (`$XDG_CONFIG_HOME`, `$XDG_CONFIG_DIRS`) are the user's and the
/// admin's own choice and always count, as do the lists of protected applications directories.
struct ReservedSchemeRule: Sendable, Equatable {
    /// The reserved schemes in force (their secure variants are reserved too).
    var reservedSchemes: Set<String>
    /// The applications directories (by index, 0 = highest precedence) whose lists are ignored
    /// for reserved schemes.
    var untrustedDirectories: Set<Int>

    /// Whether `scheme` is resolved without the untrusted directories' lists.
    func applies(to scheme: String) -> Bool {
        !untrustedDirectories.isEmpty && Policy.isReserved(scheme, in: reservedSchemes)
    }

    /// `levels` without the lists of the untrusted applications directories (their entries
    /// still count: whether an entry may claim a reserved scheme is the router's decision).
    func trustedLevels(_ levels: [ResolverLevel]) -> [ResolverLevel] {
        levels.map { level in
            guard let k = level.applicationsIndex, untrustedDirectories.contains(k) else { return level }
            return ResolverLevel(lists: [], associationList: nil, applicationsIndex: k)
        }
    }

    /// The rule as text, for the digest the registry index stores its answers under: answers
    /// resolved under another rule are not served.
    var fingerprint: String {
        "reserved=" + reservedSchemes.sorted().joined(separator: ",")
            + ";untrusted=" + untrustedDirectories.sorted().map(String.init).joined(separator: ",")
    }
}
