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
        /// Its app id or executable path; nil when nothing could be read.
        public var appID: String?
        /// True when `appID` is the app behind our CLI.
        public var throughCLI: Bool
        /// The process and its ancestors, nearest first (``CallerAncestry/lineage(of:)``).
        public var lineage: [Int32]
        /// Whether the process runs in a Flatpak sandbox (its root has a `/.flatpak-info`
        /// naming an app; for a sandboxed app on the bus that is its xdg-dbus-proxy).
        public var sandboxed: Bool
        /// Whether unrelated programs share this identity (``SharedIdentityRule``): nothing
        /// remembered for it decides silently.
        public var shared: Bool

        public init(appID: String?, throughCLI: Bool = false, lineage: [Int32] = [], sandboxed: Bool = false, shared: Bool? = nil) {
            self.appID = appID
            self.throughCLI = throughCLI
            self.lineage = lineage
            self.sandboxed = sandboxed
            self.shared = shared ?? (appID == nil)
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
        if let flatpak = CallerIdentity.flatpakID(pid: pid, procRoot: ancestry.procRoot) {
            return Identity(appID: flatpak, lineage: lineage, sandboxed: true, shared: false)
        }
        if let app = ancestry.appBehindCLI(pid: pid, installedApp: installedApp(running:)) {
            return Identity(appID: app, throughCLI: true, lineage: lineage, shared: isShared(app))
        }
        if let launcher = CallerIdentity.launcherAppID(pid: pid, procRoot: ancestry.procRoot) {
            return Identity(appID: launcher, lineage: lineage, shared: isShared(launcher))
        }
        guard let executable = CallerIdentity.executablePath(pid: pid, procRoot: ancestry.procRoot) else {
            return Identity(appID: nil, lineage: lineage)
        }
        let appID = installedApp(running: executable) ?? executable
        return Identity(appID: appID, lineage: lineage, shared: isShared(appID))
    }

    /// Whether unrelated programs share the (unsandboxed) identity `appID` (``SharedIdentityRule``).
    public func isShared(_ appID: String?) -> Bool {
        SharedIdentityRule.isShared(appID: appID) { id in registry?.entry(id: DesktopID(id))?.exec }
    }

    /// The id (without `.desktop`) of the one installed entry that runs the program at `path`
    /// and may name it (``ExecIdentityRule``); nil when none or several do, and for a program
    /// that runs others' code (an interpreter, a shell, a terminal: ``SharedIdentityRule``),
    /// which would make every script that entry.
    public func installedApp(running path: String) -> String? {
        guard let registry, let target = FileSystem.realPath(path),
              !SharedIdentityRule.isSharedProgram(CallerLabel.baseName(target)) else { return nil }
        let ids = registry.applicationIDs(executing: target).filter { id in
            guard let entry = registry.entry(id: id) else { return false }
            return rule.entry(at: entry.path, in: entry.applicationsDirectory, mayName: target)
        }
        guard ids.count == 1 else { return nil }
        return ids[0].appID
    }
}
