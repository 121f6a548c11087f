/// Who the process behind a caller is, read from `/proc` in one go. Blocking: it reads the
/// caller's files, so the service runs it on a `BlockingThreadPool` (LinuxSystem), never on a shared thread.
///
/// In order: a Flatpak's id (its `/.flatpak-info`; the identity is then ``Identity/sandboxed``);
/// the app behind our own CLI (``CallerAncestry``); the identity a launcher gave the
/// process (systemd `app-…` scope, ``CallerIdentity/launcherAppID(pid:procRoot:)``);
/// the one installed entry allowed to name its executable (``installedApp(running:)``); else the
/// executable's path. Every one of these is a claim that a program of the same user can make
/// (docs/SECURITY.md, "Caller identity"): none is worth more than another.
public struct CallerIdentifier: Sendable {
    /// What is known of a caller's process.
    public struct Identity: Sendable, Equatable {
        /// Who it is; nil when nothing could be read.
        public var id: CallerID?
        /// True when `id` is the app behind our CLI.
        public var throughCLI: Bool
        /// The process and its ancestors, nearest first (``CallerAncestry/lineage(of:)``).
        public var lineage: [Int32]
        /// Whether the process runs in a Flatpak sandbox (its root has a `/.flatpak-info`
        /// naming an app; for a sandboxed app on the bus that is its xdg-dbus-proxy).
        public var sandboxed: Bool
        /// Whether unrelated programs share this identity (``SharedIdentityRule``): nothing
        /// remembered for it decides silently.
        public var shared: Bool

        public init(id: CallerID?, throughCLI: Bool = false, lineage: [Int32] = [], sandboxed: Bool = false, shared: Bool? = nil) {
            self.id = id
            self.throughCLI = throughCLI
            self.lineage = lineage
            self.sandboxed = sandboxed
            self.shared = shared ?? (id == nil)
        }
    }

    /// How a client running our CLI is traced back to its app.
    public let ancestry: CallerAncestry
    /// The installed entries (nil: no identity by `Exec`).
    public let registry: Registry?
    /// Which entries may name which programs.
    public let rule: ExecIdentityRule

    public init(ancestry: CallerAncestry, registry: Registry?, rule: ExecIdentityRule) {
        self.ancestry = ancestry
        self.registry = registry
        self.rule = rule
    }

    /// The identity of process `pid`.
    public func identify(pid: Int32) -> Identity {
        let lineage = ancestry.lineage(of: pid)
        // Text read from the caller's files becomes a CallerID here (nil: it names no identity).
        if let flatpak = CallerIdentity.flatpakID(pid: pid, procRoot: ancestry.procRoot) {
            return Identity(id: AppID(flatpak).map(CallerID.flatpak) ?? CallerID(flatpak), lineage: lineage, sandboxed: true, shared: false)
        }
        if let app = ancestry.appBehindCLI(pid: pid, installedApp: { installedApp(running: $0)?.text }).flatMap(CallerID.init) {
            return Identity(id: app, throughCLI: true, lineage: lineage, shared: isShared(app))
        }
        if let launcher = CallerIdentity.launcherAppID(pid: pid, procRoot: ancestry.procRoot).flatMap(CallerID.init) {
            return Identity(id: launcher, lineage: lineage, shared: isShared(launcher))
        }
        guard let executable = CallerIdentity.executablePath(pid: pid, procRoot: ancestry.procRoot) else {
            return Identity(id: nil, lineage: lineage)
        }
        let id = installedApp(running: executable) ?? CallerID.executable(executable)
        return Identity(id: id, lineage: lineage, shared: isShared(id))
    }

    /// Whether unrelated programs share the (unsandboxed) identity `id` (``SharedIdentityRule``).
    public func isShared(_ id: CallerID?) -> Bool {
        SharedIdentityRule.isShared(id) { desktopID in registry?.entry(id: desktopID)?.exec }
    }

    /// The identity of the one installed entry that runs the program at `path`
    /// and may name it (``ExecIdentityRule``); nil when none or several do, and for a program
    /// that runs others' code (an interpreter, a shell, a terminal: ``SharedIdentityRule``),
    /// which would make every script that entry.
    public func installedApp(running path: String) -> CallerID? {
        guard let registry, let target = FileSystem.realPath(path),
              !SharedIdentityRule.isSharedProgram(CallerLabel.baseName(target)) else { return nil }
        let ids = registry.applicationIDs(executing: target).filter { id in
            guard let entry = registry.entry(id: id) else { return false }
            return rule.entry(at: entry.path, in: entry.applicationsDirectory, mayName: target)
        }
        guard ids.count == 1 else { return nil }
        return CallerID.desktop(ids[0])
    }
}
