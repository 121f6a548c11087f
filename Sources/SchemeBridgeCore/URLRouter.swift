/// Why a URL cannot be routed.
public enum RouteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is malformed (no valid scheme, control characters, too long...).
    case invalidURL(SchemeURLError)
    /// No eligible application handles the scheme.
    case noHandler(scheme: String)
    /// The handler asked for is not an eligible handler of the scheme.
    case invalidHandler(desktopID: String, scheme: String)
    /// The handler needs a terminal and none is installed.
    case noTerminal(desktopID: String)

    public var description: String {
        switch self {
        case .invalidURL(let e): return e.description
        case .noHandler(let scheme):
            return "no application handles the scheme '\(scheme)'; install one that declares MimeType=x-scheme-handler/\(scheme)"
        case .invalidHandler(let id, let scheme):
            return "'\(id)' is not an installed application that handles '\(scheme)' (see HandlersForScheme)"
        case .noTerminal(let id):
            return "'\(id)' runs in a terminal (Terminal=true) but neither xdg-terminal-exec nor x-terminal-emulator is installed"
        }
    }
}

/// How to start the handler for one URL.
public struct LaunchPlan: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Spawn these processes (one per command).
        case spawn([LaunchCommand])
        /// Call `org.freedesktop.Application.Open` on this bus name and object path.
        case activate(busName: String, objectPath: String)
    }
    /// The validated URL.
    public let url: SchemeURL
    /// The handler's desktop entry.
    public let entry: DesktopEntry
    public let action: Action
}

/// Turns a URL into a launch plan: validation, handler choice (default or requested),
/// loop safety, Exec expansion, terminal wrapping. Pure lookups in the registry: O(1) in the
/// number of installed applications.
public struct URLRouter: Sendable {
    public let registry: Registry
    /// Desktop IDs that are SchemeBridge itself, never handlers (loop safety).
    public let ownDesktopIDs: Set<String>

    private static let probeURL = try! SchemeURL("x-schemebridge-probe:")

    public init(registry: Registry, ownDesktopIDs: Set<String>) {
        self.registry = registry
        self.ownDesktopIDs = ownDesktopIDs
    }

    /// True when `entry` would hand the URL straight back to SchemeBridge: our own entry, or
    /// any entry whose command is `schemebridge open …`.
    public func routesBackToUs(_ entry: DesktopEntry) -> Bool {
        if ownDesktopIDs.contains(entry.id) { return true }
        guard let exec = entry.execCommand else { return false }
        let argv = exec.argumentVectors(for: [Self.probeURL]).first ?? []
        guard let first = argv.first else { return false }
        let base = first.split(separator: "/").last.map(String.init) ?? first
        return base == "schemebridge" && argv.count > 1 && argv[1] == "open"
    }

    /// The eligible handlers of `scheme`, default first, SchemeBridge itself left out.
    public func handlers(forScheme scheme: String) -> [String] {
        registry.handlers(forScheme: scheme).filter { id in
            guard let e = registry.entry(id: id) else { return false }
            return !routesBackToUs(e)
        }
    }

    /// The handler that opens `scheme`: the default, or the next one when the default is us.
    public func effectiveDefault(forScheme scheme: String) -> DesktopEntry? {
        for id in registry.handlers(forScheme: scheme) {
            if let e = registry.entry(id: id), !routesBackToUs(e) { return e }
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
    public func plan(_ url: String, handler: String? = nil, searchPath: [String]) throws(RouteError) -> LaunchPlan {
        let u = try validate(url)
        let scheme = u.scheme.name
        let entry: DesktopEntry
        if let handler {
            guard registry.isHandler(handler, forScheme: scheme), let e = registry.entry(id: handler), !routesBackToUs(e) else {
                throw .invalidHandler(desktopID: handler, scheme: scheme)
            }
            entry = e
        } else {
            guard let e = effectiveDefault(forScheme: scheme) else { throw .noHandler(scheme: scheme) }
            entry = e
        }
        if entry.dbusActivatable {
            return LaunchPlan(url: u, entry: entry, action: .activate(busName: entry.busName, objectPath: entry.objectPath))
        }
        var commands = entry.launchCommands(for: [u])
        if commands.isEmpty { throw .invalidHandler(desktopID: entry.id, scheme: scheme) }
        if entry.terminal {
            let prefix: [String]
            if let t = FileSystem.findProgram("xdg-terminal-exec", searchPath: searchPath) {
                prefix = [t]
            } else if let t = FileSystem.findProgram("x-terminal-emulator", searchPath: searchPath) {
                prefix = [t, "-e"]
            } else {
                throw .noTerminal(desktopID: entry.id)
            }
            commands = commands.map { LaunchCommand(argv: prefix + $0.argv, workingDirectory: $0.workingDirectory, environment: $0.environment) }
        }
        return LaunchPlan(url: u, entry: entry, action: .spawn(commands))
    }
}
