/// An installed application that declares app links, with what it declares and whether its
/// entry may be verified (``AppLinkTrust``).
public struct AppLinkEntry: Sendable, Equatable {
    /// The entry.
    public let entry: DesktopEntry
    /// Its `X-SchemeBridge-AppLinks=` and `-Paths=`.
    public let declaration: AppLinkDeclaration
    /// The entry is one the user's programs cannot write (``AppLinkTrust/isTrusted(_:trust:)``).
    public let trusted: Bool

    /// The desktop id.
    public var id: String { entry.idText }
    /// The app id a host's file names (the desktop id less `.desktop`).
    public var appID: String { entry.desktopID.appID }
}

/// Which entries can be `verified`: only one the user's programs cannot write — in a protected
/// applications directory that is not the user's (``TrustedDirectories``: a package's entry, or
/// a system Flatpak installation's exports), the file itself protected too. An entry in
/// `~/.local/share/applications`, a user Flatpak installation, or a directory another user owns
/// could claim any host, so its claim is at most `selected` by the user.
public enum AppLinkTrust {
    public static func isTrusted(_ entry: DesktopEntry, trust: TrustedDirectories) -> Bool {
        trust.isTrusted(entry.applicationsDirectory) && SystemPath.isProtected(entry.path)
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
            list.sort { RegistryModel.bytewiseLess($0.id, $1.id) }
            m.appLinkListing = (m.recordGeneration, list)
            return list
        }
    }
}
