import Glibc

/// An installed application that declares app links, with what it declares and whether its
/// entry may be verified (``AppLinkTrust``).
public struct AppLinkEntry: Sendable, Equatable {
    /// The entry.
    public let entry: DesktopEntry
    /// Its `X-SchemeBridge-AppLinks=` and `-Paths=`.
    public let declaration: AppLinkDeclaration
    /// The entry is one the user's programs cannot write (``AppLinkTrust/isTrusted(_:trust:)``).
    public let trusted: Bool

    /// The desktop id: what a host's file names (spelled without `.desktop`, ``DesktopID/appID``).
    public var id: DesktopID { entry.id }
}

/// Which entries can be `verified`: only one the user's programs cannot write — in a protected
/// applications directory that is not the user's (``TrustedDirectories``: a package's entry, or
/// a system Flatpak installation's exports), the file itself protected too. An entry in
/// `~/.local/share/applications`, a user Flatpak installation, or a directory another user owns
/// could claim any host, so its claim is at most `selected` by the user.
///
/// A Flatpak installation exports an entry as a symlink into the app's deployed files
/// (`exports/share/applications/ID.desktop` → `../../../app/ID/current/active/export/share/applications/ID.desktop`).
/// A symlink's own mode says nothing (it is always `rwxrwxrwx`); it can be replaced only by whoever
/// may write the directory it is in. So a symlinked entry is trusted when every symlink met on
/// the way to the file (the entry's own, `current`, `active`…) is in a protected directory that
/// is not on the user's side, and the file reached is protected and not on the user's side.
public enum AppLinkTrust {
    public static func isTrusted(_ entry: DesktopEntry, trust: TrustedDirectories) -> Bool {
        guard trust.isTrusted(entry.applicationsDirectory) else { return false }
        let path = entry.path
        guard FileSystem.isSymlink(path) else { return SystemPath.isProtected(path) }
        guard let real = protectedResolution(path, isUsersSide: trust.isUsersSide) else { return false }
        return SystemPath.isProtected(real) && !trust.isUsersSide(FileSystem.dirname(real))
    }

    /// `path` resolved component by component (as `realpath(3)` does), or nil when a symlink on
    /// the way is in a directory that is not protected or is on the user's side (so someone other
    /// than root could point it elsewhere), a link cannot be read, or there are more than 40.
    static func protectedResolution(_ path: String, isUsersSide: (String) -> Bool) -> String? {
        guard path.hasPrefix("/") else { return nil }
        var pending = Array(path.split(separator: "/").map(String.init).reversed())
        var resolved = ""  // "" is "/"; never holds a symlink
        var links = 0
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." { resolved = resolved.isEmpty ? "" : String(resolved[..<resolved.lastIndex(of: "/")!]); continue }
            let candidate = resolved + "/" + component
            guard FileSystem.isSymlink(candidate) else { resolved = candidate; continue }
            links += 1
            let directory = resolved.isEmpty ? "/" : resolved
            guard links <= 40, SystemPath.isProtected(directory), !isUsersSide(directory) else { return nil }
            guard let target = FileSystem.linkTarget(candidate) else { return nil }
            if target.hasPrefix("/") { resolved = "" }
            pending.append(contentsOf: target.split(separator: "/").map(String.init).reversed())
        }
        return resolved.isEmpty ? "/" : resolved
    }
}

extension Registry {
    /// Every installed application whose entry declares app links (not `Hidden`), by desktop id
    /// in byte order. Listed once per registry generation: a new, changed or removed entry counts
    /// at once (inotify).
    public func appLinkEntries() -> [AppLinkEntry] {
        state.withLock { m in
            if let listing = m.appLinkListing, listing.generation == m.recordGeneration { return listing.list }
            var list: [AppLinkEntry] = []
            // Served from the index, only the entries it lists as declaring app links are read
            // (the service asks at start): the model is not built for this.
            let declaring = m.frozen.map { f in f.appLinkIDs().compactMap(f.entry(id:)) }
                ?? m.effective.values.filter(ResolvedSnapshot.declaresAppLinks)
            for entry in declaring {
                guard let declaration = AppLinkDeclaration(entry) else { continue }
                list.append(AppLinkEntry(entry: entry, declaration: declaration, trusted: AppLinkTrust.isTrusted(entry, trust: trust)))
            }
            list.sort { RegistryModel.bytewiseLess($0.id.fileName, $1.id.fileName) }
            m.appLinkListing = (m.recordGeneration, list)
            return list
        }
    }
}
