import Glibc

/// The app behind our own `schemebridge` command: when a browser, `xdg-open` or `gio open` runs
/// our desktop entry (`Exec=schemebridge open %u`), the caller that counts for policy, `source`
/// and rate limits is the app that asked, not our command.
///
/// The walk goes up the parent chain of a process that runs our CLI binary (``runsOurCLI(pid:)``),
/// one `/proc/<pid>/stat` parent at a time while the CLI is alive (the service reads it while the
/// CLI waits for its reply), and returns the first process identified as an installed app:
/// - a process whose launcher-set identity (Flatpak id, systemd `app-…` scope, see
///   ``CallerIdentity``) is not ours — such an identity is inherited by the children, so our CLI
///   and the trampolines it ran through carry the app's scope when the app ran in one;
/// - otherwise, skipping our CLI and the launch trampolines (``trampolines``, and shells running
///   them: `sh /usr/bin/xdg-open URL`, `sh -c 'xdg-open …'`), a process whose script or
///   executable is the program of exactly one installed entry (`installedApp`). A script counts
///   only when the process really runs it (``runningScript(_:)``: started by its `#!` line and
///   holding it open), never for a path merely named in its arguments.
///
/// The walk stops at init (pid 1), at a process it cannot read, and after ``maximumDepth`` steps:
/// a CLI that was reparented (its launcher exited, as `gio open` does at once: GLib spawns through
/// an intermediate child) gives no ancestor, unless a scope names the app.
///
/// Trust: only a client whose `/proc/<pid>/exe` is our CLI binary (same device and inode as the
/// file the service was told about) gets the walk; any other program, whatever its name, is
/// identified as itself. A trampoline counts only when its file is a system file (owned by root,
/// not writable by group or others), so a program merely named `xdg-open` is not skipped.
public struct CallerAncestry: Sendable {
    /// Launch trampolines: programs that run a desktop entry on another program's behalf.
    public static let trampolines: Set<String> = ["xdg-open", "gio", "gio-launch-desktop", "kde-open", "kde-open5", "kde-open6", "env"]
    /// Shells that may run a trampoline (a script such as `xdg-open`, or `sh -c 'xdg-open …'`).
    public static let shells: Set<String> = ["sh", "dash", "bash", "zsh", "ksh", "mksh", "busybox"]
    /// How many parents the walk visits at most.
    public static let maximumDepth = 32
    /// The largest `/proc/<pid>/cmdline` read (a longer one is not looked at).
    static let commandLineLimit = 64 * 1024

    /// `/proc`, except in tests.
    public let procRoot: String
    /// Our own app ids (without `.desktop`): a scope naming them is skipped, never the answer.
    public let ownAppIDs: Set<String>
    /// The path of our CLI binary the service trusts (nil: no client gets the walk).
    public let cliPath: String?
    private let isSystemFile: @Sendable (String) -> Bool
    /// What the walk judged of recent ancestors (nil: everything is read every time).
    public let steps: AncestorSteps?

    /// - Parameters:
    ///   - cliPath: our `schemebridge` binary; see ``cliBeside(serviceExecutable:)``.
    ///   - ownAppIDs: our desktop ids without `.desktop`.
    ///   - procRoot: `/proc` except in tests.
    ///   - isSystemFile: whether a trampoline's file may be trusted (default: owned by root, not
    ///     writable by group or others); tests pass their own.
    ///   - steps: where the walk keeps what it judged of each ancestor for a moment (the service
    ///     passes one; see ``AncestorSteps``).
    public init(cliPath: String?, ownAppIDs: Set<String>, procRoot: String = "/proc",
                isSystemFile: @escaping @Sendable (String) -> Bool = CallerAncestry.isSystemFile, steps: AncestorSteps? = nil) {
        self.cliPath = cliPath
        self.ownAppIDs = ownAppIDs
        self.procRoot = procRoot
        self.isSystemFile = isSystemFile
        self.steps = steps
    }

    /// `schemebridge` in the folder of `serviceExecutable` (the running `schemebridged`, from
    /// `/proc/self/exe`): where `make install` and `swift build` put both. Nil when there is none.
    public static func cliBeside(serviceExecutable: String?) -> String? {
        guard let exe = serviceExecutable, let slash = exe.lastIndex(of: "/") else { return nil }
        let candidate = String(exe[..<slash]) + "/schemebridge"
        var st = stat()
        guard stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return candidate
    }

    /// What a package installs: only root can change it (``SystemPath/isProtected(_:)``).
    public static func isSystemFile(_ path: String) -> Bool { SystemPath.isProtected(path) }

    /// The full command line beside our `schemebridge` (its lean entry point), which runs it in
    /// its own place (`exec`: same process) for anything but a plain `open URL...`.
    public static let fullCLIName = "schemebridge-cli"

    /// Whether process `pid` runs our CLI binary: its `/proc/<pid>/exe` is the same file
    /// (device and inode) as ``cliPath``, or as the full command line beside it
    /// (``fullCLIName``). A program merely named `schemebridge` is not.
    public func runsOurCLI(pid: Int32) -> Bool {
        guard let cliPath, let slash = cliPath.lastIndex(of: "/") else { return false }
        var theirs = stat()
        guard stat("\(procRoot)/\(pid)/exe", &theirs) == 0 else { return false }
        return [cliPath, String(cliPath[...slash]) + Self.fullCLIName].contains { path in
            var ours = stat()
            return stat(path, &ours) == 0 && ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino
        }
    }

    /// The app id of the nearest ancestor of our CLI process `pid` identified as an installed
    /// app; nil when `pid` is not our CLI or no ancestor is one. `installedApp` maps a program's
    /// absolute path to the id (without `.desktop`) of the one installed entry that runs it.
    public func appBehindCLI(pid: Int32, installedApp: (String) -> String?) -> String? {
        let ours = ourCLIFiles()
        guard let exe = Self.fileID("\(procRoot)/\(pid)/exe"), ours.contains(exe) else { return nil }
        var current = pid
        var seen: Set<Int32> = []
        for _ in 0..<Self.maximumDepth {
            guard current > 1, seen.insert(current).inserted, let (step, ourCLI) = step(pid: current, isTheCLI: current == pid, ours: ours) else { return nil }
            let process = step.snapshot
            if let id = process.launcherAppID, !ownAppIDs.contains(id) { return id }
            if !(current == pid || ourCLI || step.trampoline) {
                if let script = step.script, let id = installedApp(script) { return id }
                if let exe = process.executable, let id = installedApp(exe) { return id }
            }
            current = process.parentPID
        }
        return nil
    }

    /// A file's device and inode.
    struct FileID: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    static func fileID(_ path: String) -> FileID? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The files of our CLI (``cliPath`` and the full command line beside it) that exist.
    func ourCLIFiles() -> [FileID] {
        guard let cliPath, let slash = cliPath.lastIndex(of: "/") else { return [] }
        return [cliPath, String(cliPath[...slash]) + Self.fullCLIName].compactMap(Self.fileID)
    }

    /// Process `pid` as the walk judges it — whether it runs our CLI, is a trampoline, runs a
    /// script — with its parent read now; an ancestor's judgement is kept in ``steps`` and reused
    /// while it is the same process running the same file (``AncestorSteps``). Nil when it
    /// cannot be read.
    private func step(pid: Int32, isTheCLI: Bool, ours: [FileID]) -> (AncestorSteps.Step, ourCLI: Bool)? {
        guard let stat = try? FileSystem.readFile("\(procRoot)/\(pid)/stat", limit: 4096), let parent = Self.parentPID(fromStat: stat) else { return nil }
        let key = isTheCLI ? nil : AncestorSteps.key(pid: pid, stat: stat, procRoot: procRoot)
        let ourCLI = isTheCLI || (key.map { ours.contains(FileID(device: $0.device, inode: $0.inode)) } ?? runsOurCLI(pid: pid))
        if let key, let kept = steps?.step(pid: pid, key: key) {
            var snapshot = kept.snapshot
            snapshot.parentPID = parent
            return (AncestorSteps.Step(snapshot: snapshot, trampoline: kept.trampoline, script: kept.script), ourCLI)
        }
        guard let snapshot = snapshot(pid: pid) else { return nil }
        let trampoline = !isTheCLI && !ourCLI && isTrampoline(snapshot)
        let step = AncestorSteps.Step(snapshot: snapshot, trampoline: trampoline, script: isTheCLI || ourCLI || trampoline ? nil : runningScript(snapshot))
        if let key { steps?.keep(step, pid: pid, key: key) }
        return (step, ourCLI)
    }

    /// Process `pid` and its ancestors, nearest first (`/proc/<pid>/stat` parent by parent),
    /// stopping before init, at a process it cannot read, at a repeat and after
    /// ``maximumDepth`` processes. Run-time loop safety compares them with recent launches.
    public func lineage(of pid: Int32) -> [Int32] {
        var chain: [Int32] = []
        var current = pid
        while current > 1, chain.count < Self.maximumDepth, !chain.contains(current) {
            chain.append(current)
            guard let stat = try? FileSystem.readFile("\(procRoot)/\(current)/stat", limit: 4096),
                  let parent = Self.parentPID(fromStat: stat) else { break }
            current = parent
        }
        return chain
    }

    /// What the walk reads of one process.
    public struct Snapshot: Sendable, Equatable {
        /// Its id.
        public var pid: Int32
        /// Its parent's id (`/proc/<pid>/stat`, field 4).
        public var parentPID: Int32
        /// `/proc/<pid>/exe`.
        public var executable: String?
        /// `/proc/<pid>/cmdline`, split at NUL (empty when longer than the limit).
        public var arguments: [String]
        /// The identity its launcher gave it: Flatpak id or systemd `app-…` scope.
        public var launcherAppID: String?

        /// The script an interpreter runs: the first argument after `argv[0]` that is not an
        /// option, when it is an absolute path (`/bin/sh /usr/bin/xdg-open URL`).
        public var scriptPath: String? {
            guard let first = arguments.dropFirst().prefix(3).first(where: { !$0.hasPrefix("-") }), first.hasPrefix("/") else { return nil }
            return first
        }
    }

    /// The parts of `/proc/<pid>` the walk uses; nil when the process is gone or unreadable.
    public func snapshot(pid: Int32) -> Snapshot? {
        guard let stat = try? FileSystem.readFile("\(procRoot)/\(pid)/stat", limit: 4096),
              let parent = Self.parentPID(fromStat: stat) else { return nil }
        let cmdline = (try? FileSystem.readFile("\(procRoot)/\(pid)/cmdline", limit: Self.commandLineLimit)) ?? []
        let arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false).dropLast(cmdline.last == 0 ? 1 : 0)
            .map { String(decoding: $0, as: UTF8.self) }
        return Snapshot(pid: pid, parentPID: parent, executable: CallerIdentity.executablePath(pid: pid, procRoot: procRoot),
                        arguments: arguments, launcherAppID: CallerIdentity.launcherAppID(pid: pid, procRoot: procRoot))
    }

    /// Field 4 of a `/proc/<pid>/stat` text (after the parenthesised command, which may hold
    /// spaces and parentheses itself).
    public static func parentPID(fromStat bytes: [UInt8]) -> Int32? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        return Int32(String(decoding: fields[1], as: UTF8.self))
    }

    /// Whether `process` is a launch trampoline (or a shell running one, or our CLI by name in
    /// `sh -c`), judged by system files only.
    func isTrampoline(_ process: Snapshot) -> Bool {
        guard let exe = process.executable else { return false }
        let name = Self.baseName(exe)
        // The names first: the file's ownership is looked at only for a trampoline's or a shell's.
        guard Self.trampolines.contains(name) || Self.shells.contains(name), isSystemFile(exe) else { return false }
        if Self.trampolines.contains(name) { return true }
        let args = Array(process.arguments.dropFirst())
        if let c = args.firstIndex(of: "-c"), c + 1 < args.count {
            var words = args[c + 1].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.first == "exec" { words.removeFirst() }
            guard let first = words.first else { return false }
            let base = Self.baseName(first.trimmingQuotes)
            return Self.trampolines.contains(base) || base == "schemebridge"
        }
        guard let script = process.scriptPath else { return false }
        return Self.trampolines.contains(Self.baseName(script)) && isSystemFile(script)
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

extension String {
    fileprivate var trimmingQuotes: String {
        var s = Substring(self)
        while let f = s.first, f == "'" || f == "\"" { s = s.dropFirst() }
        while let l = s.last, l == "'" || l == "\"" { s = s.dropLast() }
        return String(s)
    }
}
