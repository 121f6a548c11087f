import Glibc

/// The device engines the service talks to.
public enum DeviceEngineKind: String, Sendable, Equatable, CaseIterable {
    /// KDE Connect's `kdeconnectd` (`org.kde.kdeconnect`).
    case kdeconnect
    /// GSConnect's service, `service/daemon.js` run by gjs (`org.gnome.Shell.Extensions.GSConnect`).
    case gsconnect
}

/// What is known of the process behind an engine's bus name (`GetConnectionUnixProcessID`, then
/// `/proc/<pid>`), gathered by ``gather(pid:procRoot:)`` for ``DeviceEngineRule``.
public struct EngineProcess: Sendable, Equatable {
    /// The executable (`/proc/<pid>/exe`, resolved), "" when it cannot be read.
    public var executable: String
    /// Whether that path is what the process runs (same file: not deleted, replaced or seen
    /// through another mount namespace) and is protected (``SystemPath/isProtected(_:)``).
    public var executableProtected: Bool
    /// Whether the process runs in a Flatpak sandbox (its root has a `/.flatpak-info`).
    public var sandboxed: Bool
    /// Its command line (`/proc/<pid>/cmdline`), at most a few arguments.
    public var arguments: [String]
    /// The indices of `arguments` that are absolute paths of protected regular files (only the
    /// first few are looked at).
    public var protectedArguments: Set<Int>
    /// Its working directory (`/proc/<pid>/cwd`, resolved), nil when it cannot be read: where
    /// KDE Connect writes received text.
    public var workingDirectory: String?

    public init(executable: String, executableProtected: Bool, sandboxed: Bool = false, arguments: [String] = [],
                protectedArguments: Set<Int> = [], workingDirectory: String? = nil) {
        self.executable = executable
        self.executableProtected = executableProtected
        self.sandboxed = sandboxed
        self.arguments = arguments
        self.protectedArguments = protectedArguments
        self.workingDirectory = workingDirectory
    }

    /// How many arguments are kept and looked at.
    public static let argumentLimit = 8

    /// The facts of process `pid`; nil when it is gone or its executable cannot be read. Blocking
    /// (it reads the process's files and examines its executable): call it from a thread of its own.
    public static func gather(pid: Int32, procRoot: String = "/proc") -> EngineProcess? {
        guard pid > 0, let executable = CallerIdentity.executablePath(pid: pid, procRoot: procRoot) else { return nil }
        var running = stat(), named = stat()
        // The file the process runs, compared with what the path names here: a deleted or
        // replaced executable, or one seen through the process's own mounts, is not that path.
        let same = stat("\(procRoot)/\(pid)/exe", &running) == 0 && stat(executable, &named) == 0
            && running.st_dev == named.st_dev && running.st_ino == named.st_ino
        let sandboxed = access("\(procRoot)/\(pid)/root/.flatpak-info", F_OK) == 0
        let cmdline = (try? FileSystem.readFile("\(procRoot)/\(pid)/cmdline", limit: CallerAncestry.commandLineLimit)) ?? []
        let arguments = Array(cmdline.split(separator: 0, omittingEmptySubsequences: false).prefix(argumentLimit))
            .map { String(decoding: $0, as: UTF8.self) }
        var protected: Set<Int> = []
        for (i, argument) in arguments.enumerated() where argument.hasPrefix("/") {
            var st = stat()
            if stat(argument, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let resolved = FileSystem.realPath(argument),
               SystemPath.isProtected(argument), SystemPath.isProtected(resolved) {
                protected.insert(i)
            }
        }
        return EngineProcess(executable: executable, executableProtected: same && SystemPath.isProtected(executable), sandboxed: sandboxed,
                             arguments: arguments, protectedArguments: protected,
                             workingDirectory: FileSystem.realPath("\(procRoot)/\(pid)/cwd"))
    }
}

/// Which process may be a device engine. Whatever owns an engine's bus name is asked for its
/// devices, is sent what the user shares to them, and is believed about what devices sent; any
/// program on the session bus can own the name while the real engine is not running. So the
/// owner is accepted only when it is the engine's own program, installed where only root can
/// change it (``SystemPath/isProtected(_:)``), outside any sandbox:
/// - KDE Connect: the executable is a protected file named `kdeconnectd` (`/usr/bin/kdeconnectd`,
///   `/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd`).
/// - GSConnect: the executable is a protected `gjs` (`gjs-console`) whose arguments are only `-m`
///   (optional) and then a protected file `…/gsconnect@andyholmes.github.io/service/daemon.js`
///   (the extension installed system-wide; one in the user's own extensions folder is the
///   user's programs' to rewrite, so it is not accepted). gjs options that load other code
///   (`-I`, `-c`, `--include-path`…) are refused.
///
/// A python or shell script, a copy of an engine in a folder the user can write, an engine
/// inside a Flatpak, or a program whose executable was replaced since it started is not an engine.
public enum DeviceEngineRule {
    /// The executable file names of KDE Connect's engine.
    public static let kdeconnectPrograms: Set<String> = ["kdeconnectd"]
    /// The executable file names of gjs.
    public static let gjsPrograms: Set<String> = ["gjs", "gjs-console"]
    /// How GSConnect's service file's path ends.
    public static let gsconnectService = "/gsconnect@andyholmes.github.io/service/daemon.js"

    /// Nil when `process` may be `engine`; else why not (for the log).
    public static func refusal(of process: EngineProcess, as engine: DeviceEngineKind) -> String? {
        let program = process.executable.split(separator: "/").last.map(String.init) ?? ""
        if process.sandboxed { return "it runs in a Flatpak sandbox" }
        switch engine {
        case .kdeconnect:
            guard kdeconnectPrograms.contains(program) else { return "its program is \(describe(process.executable)), not kdeconnectd" }
            guard process.executableProtected else { return "its program \(describe(process.executable)) is not a system file only root can change" }
            return nil
        case .gsconnect:
            guard gjsPrograms.contains(program) else { return "its program is \(describe(process.executable)), not gjs running GSConnect" }
            guard process.executableProtected else { return "its program \(describe(process.executable)) is not a system file only root can change" }
            var index = 1
            if process.arguments.count > index, process.arguments[index] == "-m" { index += 1 }
            guard process.arguments.count > index, process.arguments[index].hasSuffix(gsconnectService) else {
                return "gjs does not run GSConnect's service (…\(gsconnectService)) as its only option"
            }
            guard process.protectedArguments.contains(index) else {
                return "gjs runs \(describe(process.arguments[index])), which is not a system file only root can change (GSConnect installed for this user alone is not trusted)"
            }
            return nil
        }
    }

    /// Whether `process` may be `engine` (``refusal(of:as:)`` is nil).
    public static func accepts(_ process: EngineProcess, as engine: DeviceEngineKind) -> Bool {
        refusal(of: process, as: engine) == nil
    }

    /// A path for the log: control characters shown as spaces, at most 200 characters.
    static func describe(_ path: String) -> String {
        path.isEmpty ? "unknown" : String(String(path.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }).prefix(200))
    }
}
