import CLinux
import Glibc

/// Why a program could not be started.
public struct LaunchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The program that was to run (argv[0]).
    public let program: String
    /// The errno value, when the system refused.
    public let code: Int32
    /// What went wrong, for a person.
    public let reason: String

    public var description: String { "cannot start '\(program)': \(reason)" }
}

/// Starts handler processes: argv exactly as given (never a shell), an empty signal mask
/// and default signal handlers, a new session, stdin on /dev/null; children are reaped by
/// ``ChildReaper``.
public struct ProcessLauncher: Sendable {
    public init() {}

    /// Starts `argv` with exactly `environment` as its environment. Returns the pid once
    /// the program has been executed; a program that cannot be executed throws.
    /// `onExit` (if given) is called with the exit code (128+signal when killed) once the
    /// process has ended and been reaped. `onStart` (if given) is called with the pid before
    /// the child can be reaped, so a pidfd opened there is surely this child's. `stdin`,
    /// `stdout` and `stderr` are descriptors for the child's (-1: /dev/null).
    public func spawn(
        argv: [String], environment: [String: String], workingDirectory: String? = nil,
        stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1, onStart: ((Int32) -> Void)? = nil, onExit: (@Sendable (Int32) -> Void)? = nil
    ) throws(LaunchError) -> Int32 {
        try spawn(arguments: argv.map { Array($0.utf8) }, environment: environment, workingDirectory: workingDirectory,
                  stdin: stdin, stdout: stdout, stderr: stderr, onStart: onStart, onExit: onExit)
    }

    /// ``spawn(argv:environment:workingDirectory:stdin:stdout:stderr:onStart:onExit:)`` with the
    /// arguments as bytes, passed exactly so: a file name need not be UTF-8.
    public func spawn(
        arguments: [[UInt8]], environment: [String: String], workingDirectory: String? = nil,
        stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1, onStart: ((Int32) -> Void)? = nil, onExit: (@Sendable (Int32) -> Void)? = nil
    ) throws(LaunchError) -> Int32 {
        try spawn(arguments: arguments, environment: SpawnEnvironment(environment), workingDirectory: workingDirectory,
                  stdin: stdin, stdout: stdout, stderr: stderr, onStart: onStart, onExit: onExit)
    }

    /// ``spawn(arguments:environment:workingDirectory:stdin:stdout:stderr:onStart:onExit:)`` with
    /// the environment prepared once (``SpawnEnvironment``): a handler's launch adds its few
    /// variables to the service's environment without building it again. `arming` (if given) is
    /// handed the reaper's watch of the child, to run later (the service: after the method's reply,
    /// ``LaunchPort/afterReply(_:)``); a child that ended meanwhile is reaped once it runs.
    public func spawn(
        arguments: [[UInt8]], environment: SpawnEnvironment, workingDirectory: String? = nil,
        stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1, onStart: ((Int32) -> Void)? = nil, onExit: (@Sendable (Int32) -> Void)? = nil,
        arming: ((@escaping @Sendable () -> Void) -> Void)? = nil
    ) throws(LaunchError) -> Int32 {
        guard let first = arguments.first, !first.isEmpty else {
            throw LaunchError(program: "", code: EINVAL, reason: "the command line is empty")
        }
        let program = String(decoding: first, as: UTF8.self)
        for a in arguments where a.contains(0) {
            throw LaunchError(program: program, code: EINVAL, reason: "an argument contains a NUL byte")
        }
        // An absolute path goes to exec as is, so its own error (permission denied, not an
        // executable) is what the caller hears; a bare name is looked up on the child's PATH.
        guard let path = program.hasPrefix("/") ? program : ProgramLookup.find(program, searchPath: ProgramLookup.searchPath(environment: ["PATH": environment.value("PATH")].compactMapValues { $0 })) else {
            throw LaunchError(program: program, code: ENOENT, reason: "no program '\(program)' on PATH (\(environment.value("PATH") ?? "default PATH"))")
        }
        if let dir = workingDirectory {
            var st = stat()
            guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw LaunchError(program: program, code: ENOENT, reason: "its working directory '\(dir)' (Path=) does not exist")
            }
        }
        // Each argument's bytes and a NUL, in malloc'd memory (freed below, as strdup's would be).
        let cArgs: [UnsafeMutablePointer<CChar>?] = arguments.map { bytes in
            let p = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
            bytes.withUnsafeBytes { if let base = $0.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: $0.count) } }
            p[bytes.count] = 0
            return p
        } + [nil]
        // The base's C strings were made once (``SpawnEnvironment``); only this launch's own are made here.
        let (cEnv, ownEnv) = environment.cStrings()
        defer {
            for p in cArgs { free(p) }
            for p in ownEnv { free(p) }
            withExtendedLifetime(environment) {}  // its base holds the rest of `cEnv`
        }
        var pid: pid_t = 0
        var rc: Int32 = 0
        // ETXTBSY: the program was just written, and a child that another thread forked meanwhile
        // still holds the writer's descriptor until it execs (microseconds, longer on a loaded
        // machine). Asked again a few times, 5 ms apart (100 ms at most).
        for attempt in 0..<20 {
            if attempt > 0 { usleep(5_000) }
            rc = cArgs.withUnsafeBufferPointer { argvBuf in
                cEnv.withUnsafeBufferPointer { envBuf in
                    if let dir = workingDirectory {
                        return dir.withCString { clinux_spawn_io(path, argvBuf.baseAddress, envBuf.baseAddress, $0, stdin, stdout, stderr, 1, &pid) }
                    }
                    return clinux_spawn_io(path, argvBuf.baseAddress, envBuf.baseAddress, nil, stdin, stdout, stderr, 1, &pid)
                }
            }
            if rc != ETXTBSY { break }
        }
        guard rc == 0 else {
            let reason: String
            switch rc {
            case ENOENT: reason = "'\(path)' does not exist"
            case EACCES: reason = "permission denied running '\(path)' (is it executable?)"
            case ENOEXEC: reason = "'\(path)' is not an executable program"
            default: reason = String(cString: strerror(rc))
            }
            throw LaunchError(program: program, code: rc, reason: reason)
        }
        onStart?(pid)
        // Its pidfd polls readable even when opened after the child ended (a zombie until reaped).
        if let arming { arming { [pid] in ChildReaper.shared.watch(pid: pid, onExit: onExit) } } else { ChildReaper.shared.watch(pid: pid, onExit: onExit) }
        return pid
    }
}

/// A spawned program's environment as `KEY=VALUE` lines: a base prepared once (the service's
/// environment for its handlers, kept as the C strings `execve` takes) with a few variables set
/// over it per launch. Keys that are empty or hold `=` are left out, as `execve` could not pass them.
public struct SpawnEnvironment: Sendable {
    private let base: Base
    private var overrides: [String: String] = [:]
    /// The base's variables that ``overrides`` set over (their indices in the base).
    private var hidden: Set<Int> = []

    /// The base's variables, each a `KEY=VALUE` C string made once and never changed (freed with it).
    private final class Base: @unchecked Sendable {
        let index: [String: Int]
        let lines: [UnsafeMutablePointer<CChar>]
        init(_ variables: [String: String]) {
            let valid = variables.filter { SpawnEnvironment.isValidKey($0.key) }
            index = Dictionary(uniqueKeysWithValues: valid.keys.enumerated().map { ($1, $0) })
            lines = valid.map { strdup($0.key + "=" + $0.value)! }
        }
        deinit { for p in lines { free(p) } }
        func line(_ i: Int) -> String { String(cString: lines[i]) }
    }

    public init(_ variables: [String: String]) {
        base = Base(variables)
    }

    /// This environment with `variables` set (over its own; later calls over earlier ones).
    public func setting(_ variables: [String: String]) -> SpawnEnvironment {
        var copy = self
        for (k, v) in variables where Self.isValidKey(k) {
            copy.overrides[k] = v
            if let i = base.index[k] { copy.hidden.insert(i) }
        }
        return copy
    }

    /// The value of `key`.
    public func value(_ key: String) -> String? {
        if let v = overrides[key] { return v }
        guard let i = base.index[key] else { return nil }
        return String(decoding: base.line(i).utf8.dropFirst(key.utf8.count + 1), as: UTF8.self)
    }

    /// Every variable as a `KEY=VALUE` line.
    public var lines: [String] {
        base.lines.indices.compactMap { hidden.contains($0) ? nil : base.line($0) } + overrides.map { $0.key + "=" + $0.value }
    }

    /// ``lines`` as the NUL-terminated `envp` array `execve` takes, and the C strings in it made
    /// for this call (the caller frees those; the base's belong to the base, which `self` keeps
    /// alive while the caller holds it).
    func cStrings() -> (envp: [UnsafeMutablePointer<CChar>?], owned: [UnsafeMutablePointer<CChar>]) {
        var envp: [UnsafeMutablePointer<CChar>?] = []
        envp.reserveCapacity(base.lines.count + overrides.count + 1)
        for i in base.lines.indices where hidden.isEmpty || !hidden.contains(i) { envp.append(base.lines[i]) }
        let owned = overrides.map { strdup($0.key + "=" + $0.value)! }
        for p in owned { envp.append(p) }
        envp.append(nil)
        return (envp, owned)
    }

    private static func isValidKey(_ key: String) -> Bool { !key.isEmpty && !key.contains("=") }
}
