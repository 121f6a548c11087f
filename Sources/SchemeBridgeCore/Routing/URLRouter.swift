/// Why a URL cannot be routed.
public enum RouteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is malformed (no valid scheme, control characters, too long...).
    case invalidURL(SchemeURLError)
    /// No eligible application handles the scheme.
    case noHandler(scheme: String)
    /// The handler asked for is not an eligible handler of the scheme.
    case invalidHandler(desktopID: DesktopID, scheme: String)
    /// The handler needs a terminal and none is installed.
    case noTerminal(desktopID: DesktopID)
    /// A reserved scheme claimed only by entries in the user's data dir that no config-dir
    /// `mimeapps.list` names; or `file:`, which is never routed.
    case reservedScheme(scheme: String, desktopID: DesktopID?)

    public var description: String {
        switch self {
        case .invalidURL(let e): return e.description
        case .noHandler(let scheme):
            return "no application handles the scheme '\(scheme)'; install one that declares MimeType=x-scheme-handler/\(scheme)"
        case .invalidHandler(let id, let scheme):
            return "'\(id)' is not an installed application that handles '\(scheme)' (see HandlersForScheme)"
        case .noTerminal(let id):
            return "'\(id)' runs in a terminal (Terminal=true) but no terminal emulator is installed (looked for "
                + Terminals.known.map(\.program).joined(separator: ", ") + ")"
        case .reservedScheme(let scheme, let id):
            if scheme == "file" {
                return "file: URLs are never routed to scheme handlers; open files with xdg-open or gio open"
            }
            let who = id.map { "'\($0)'" } ?? "an application in ~/.local/share/applications"
            return "'\(scheme)' is a reserved scheme: \(who) cannot take it over by listing it; "
                + "choose it explicitly in ~/.config/mimeapps.list (for example with `gio mime x-scheme-handler/\(scheme) ID`)"
        }
    }
}

/// Turns a URL into a launch plan: validation, handler choice (default or requested),
/// loop safety, Exec expansion, terminal wrapping. Pure lookups in the registry: O(1) in the
/// number of installed applications.
public struct URLRouter: Sendable {
    public let registry: Registry
    /// Desktop IDs that are SchemeBridge itself, never handlers (loop safety).
    public let ownDesktopIDs: Set<DesktopID>
    /// Reserved schemes and other rules.
    public let policy: Policy
    /// When set, its current reserved schemes replace ``policy``'s (live config).
    public let policyStore: PolicyStore?

    public init(registry: Registry, ownDesktopIDs: Set<DesktopID>, policy: Policy = Policy(), policyStore: PolicyStore? = nil) {
        self.registry = registry
        self.ownDesktopIDs = ownDesktopIDs
        self.policy = policy
        self.policyStore = policyStore
        // The registry follows the config's reserved schemes: told now, and by the store on each change.
        registry.useReservedSchemes(policyStore?.current.reservedSchemes ?? policy.reservedSchemes)
        policyStore?.onChange { [registry] config in registry.useReservedSchemes(config.reservedSchemes) }
    }

    /// Which applications directories may claim reserved schemes (the registry's).
    public var trust: TrustedDirectories { registry.trust }

    /// The reserved schemes in force. Reading them notices a change of the config file, which
    /// the store hands to the registry (``PolicyStore/onChange(_:)``): it counts from the first
    /// lookup that reads it. A read writes nothing.
    var reservedSchemes: Set<String> { policyStore?.current.reservedSchemes ?? policy.reservedSchemes }

    /// Notices a change of the config file before a lookup (``reservedSchemes``).
    func noticeConfigChanges() { policyStore?.noticeChanges() }

    /// True when `entry` lives in a directory the user's programs can write (the user's data dir,
    /// a user Flatpak installation's exports, any directory not protected — see
    /// ``TrustedDirectories``), lists reserved `scheme`, no config-dir `mimeapps.list` names it,
    /// and it is not a menu editor's copy of a protected entry (same desktop id, same program,
    /// and the entry it masks lists `scheme` too): a hijack attempt, not a candidate. A copy keeps
    /// what its system entry had; a new program gets nothing.
    public func isHijack(_ entry: DesktopEntry, scheme: String) -> Bool {
        guard Policy.isReserved(scheme, in: reservedSchemes) else { return false }
        if registry.isNamedInConfigList(entry.id, forScheme: scheme) { return false }
        // An entry that does not list the scheme itself is a handler only through an association
        // list; for a reserved scheme only the user's or the admin's config lists count (one in
        // an applications directory, such as ~/.local/share/applications/mimeapps.list, could
        // point https at a terminal).
        if !entry.schemes.contains(scheme) { return true }
        guard !trust.isTrusted(entry.applicationsDirectory) else { return false }
        return !registry.maskedEntries(id: entry.id).contains { masked in
            trust.isTrusted(masked.applicationsDirectory) && masked.schemes.contains(scheme)
                && masked.execProgram != nil && masked.execProgram == entry.execProgram
        }
    }

    /// Whether `entry` may handle `scheme` at all.
    public func isCandidate(_ entry: DesktopEntry, scheme: String) -> Bool {
        !routesBackToUs(entry) && !isHijack(entry, scheme: scheme) && !Policy.isNeverRouted(scheme)
    }

    /// True when `entry` would hand the URL straight back to SchemeBridge: our own entry, or
    /// any entry whose command is `schemebridge open …`.
    public func routesBackToUs(_ entry: DesktopEntry) -> Bool {
        entry.runsSchemeBridgeOpen || ownDesktopIDs.contains(entry.id)
    }

    /// The eligible handlers of `scheme`, default first, SchemeBridge itself left out.
    public func handlers(forScheme scheme: String) -> [DesktopID] {
        let key = Registry.lowercasedASCII(scheme)
        noticeConfigChanges()
        return registry.handlers(forScheme: key).filter { id in
            guard let e = registry.entry(id: id) else { return false }
            return isCandidate(e, scheme: key)
        }
    }

    /// The handler that opens `scheme`: the default, or the next one when the default is us.
    public func effectiveDefault(forScheme scheme: String) -> DesktopEntry? {
        let key = Registry.lowercasedASCII(scheme)
        noticeConfigChanges()
        for id in registry.handlers(forScheme: key) {
            if let e = registry.entry(id: id), isCandidate(e, scheme: key) { return e }
        }
        return nil
    }

    /// Validates `url`; throws ``RouteError/invalidURL(_:)``.
    public func validate(_ url: String) throws(RouteError) -> SchemeURL {
        do { return try SchemeURL(url) } catch { throw .invalidURL(error) }
    }

    /// Whether `url` is well formed and has a handler (throws for a malformed URL).
    public func canOpen(_ url: String) throws(RouteError) -> Bool {
        let u = try validate(url)
        return effectiveDefault(forScheme: u.scheme.name) != nil
    }

    /// The plan for opening `url`, with `handler` (a desktop ID) instead of the default if given.
    /// `searchPath` finds the terminal for `Terminal=true` handlers.
    ///
    /// The chosen entry's desktop file (and those of the entries it masks) is read again first:
    /// the plan is made from what the files say now, never from the registry index alone (see
    /// ``Registry/matchesFilesOnDisk(_:)``). When they disagree, the registry is brought back to
    /// the files (``Registry/reloadFromFiles(because:)``) and the choice is made anew.
    public func plan(_ url: String, handler: DesktopID? = nil, searchPath: [String]) throws(RouteError) -> LaunchPlan {
        try plan(try validate(url), handler: handler, searchPath: searchPath)
    }

    /// ``plan(_:handler:searchPath:)`` for a URL parsed already.
    public func plan(_ url: SchemeURL, handler: DesktopID? = nil, searchPath: [String]) throws(RouteError) -> LaunchPlan {
        try confirmed { () throws(RouteError) in try plan(unconfirmed: url, handler: handler, searchPath: searchPath) }
    }

    /// `make()`'s plan once its entry matches its file on disk; made again (at most twice) after
    /// the registry was reloaded from the files. A handler whose file keeps changing under us is
    /// refused rather than launched from a record nobody vouches for.
    private func confirmed(_ make: () throws(RouteError) -> LaunchPlan) throws(RouteError) -> LaunchPlan {
        var attempt = 0
        while true {
            let plan = try make()
            if registry.matchesFilesOnDisk(plan.entry) { return plan }
            attempt += 1
            guard attempt <= 2 else { throw .invalidHandler(desktopID: plan.entry.id, scheme: plan.url?.scheme.name ?? "") }
            registry.reloadFromFiles(because: plan.entry)
        }
    }

    private func plan(unconfirmed u: SchemeURL, handler: DesktopID?, searchPath: [String]) throws(RouteError) -> LaunchPlan {
        let scheme = u.scheme.name
        if Policy.isNeverRouted(scheme) { throw .reservedScheme(scheme: scheme, desktopID: nil) }
        noticeConfigChanges()
        let entry: DesktopEntry
        if let handler {
            guard registry.isHandler(handler, forScheme: scheme), let e = registry.entry(id: handler), !routesBackToUs(e) else {
                throw .invalidHandler(desktopID: handler, scheme: scheme)
            }
            if isHijack(e, scheme: scheme) { throw .reservedScheme(scheme: scheme, desktopID: handler) }
            entry = e
        } else {
            guard let e = effectiveDefault(forScheme: scheme) else {
                let hijackers = registry.handlers(forScheme: scheme).compactMap { registry.entry(id: $0) }.filter { isHijack($0, scheme: scheme) }
                if let first = hijackers.first { throw .reservedScheme(scheme: scheme, desktopID: first.id) }
                throw .noHandler(scheme: scheme)
            }
            entry = e
        }
        return try launchPlan(u, entry: entry, searchPath: searchPath, targets: .url(u))
    }

    /// The plan for handing `url` (a local file's `file://` URL, in an Inbox) to `entry`, the
    /// handler chosen for the document's type: its `Exec` gets the path (`%f`/`%F`) or the URL
    /// (`%u`/`%U`), or it is activated over D-Bus with the URL.
    /// Like a URL's plan, it is made from the entry's file as it is now: when that disagrees with
    /// `entry`, the registry is reloaded from the files and the entry with `entry`'s ID is used.
    /// `inDocumentPortal`: `url` is a document portal path granted to the entry's Flatpak app,
    /// passed without flatpak's own file forwarding (``DesktopEntry/launchCommandsWithoutFileForwarding(for:)``).
    public func plan(document url: SchemeURL, entry: DesktopEntry, searchPath: [String], inDocumentPortal: Bool = false) throws(RouteError) -> LaunchPlan {
        var reloaded = false
        return try confirmed { () throws(RouteError) in
            defer { reloaded = true }
            guard let current = reloaded ? registry.entry(id: entry.id) : entry, !routesBackToUs(current) else {
                throw .invalidHandler(desktopID: entry.id, scheme: url.scheme.name)
            }
            return try launchPlan(url, entry: current, searchPath: searchPath, inDocumentPortal: inDocumentPortal, targets: .documents([url]))
        }
    }

    /// How to start `entry` for `u`: D-Bus activation, or its `Exec` (in a terminal when it asks).
    private func launchPlan(_ u: SchemeURL, entry: DesktopEntry, searchPath: [String], inDocumentPortal: Bool = false,
                            targets: LaunchTargets) throws(RouteError) -> LaunchPlan {
        if entry.dbusActivatable {
            return LaunchPlan(targets: targets, entry: entry, action: .activate(busName: entry.busName, objectPath: entry.objectPath))
        }
        var commands = inDocumentPortal ? entry.launchCommandsWithoutFileForwarding(for: [u]) : entry.launchCommands(for: [u])
        if commands.isEmpty { throw .invalidHandler(desktopID: entry.id, scheme: u.scheme.name) }
        if entry.terminal {
            guard let prefix = Terminals.prefix(searchPath: searchPath) else { throw .noTerminal(desktopID: entry.id) }
            commands = commands.map { $0.prefixed(by: prefix) }
        }
        return LaunchPlan(targets: targets, entry: entry, action: .spawn(commands))
    }
}
