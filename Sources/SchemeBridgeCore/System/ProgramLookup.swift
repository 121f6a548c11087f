import Glibc

/// Finds programs the way `TryExec`, `Exec` and the launcher need it: the one PATH lookup of
/// the project.
public enum ProgramLookup {
    /// The directories of `PATH` in `environment` (absolute ones only, duplicates dropped);
    /// `/usr/local/bin:/usr/bin:/bin` when `PATH` is unset or empty.
    public static func searchPath(environment: [String: String]) -> [String] {
        let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        return XDGDirectories.pathList(path)
    }

    /// The executable regular file `program` names: an absolute path as is, a bare name looked
    /// up in `searchPath`. A relative path with a `/` is refused (it would depend on the
    /// service's working directory).
    public static func find(_ program: String, searchPath: [String]) -> String? {
        if program.isEmpty { return nil }
        if program.hasPrefix("/") { return FileSystem.isExecutableFile(program) ? program : nil }
        if program.contains("/") { return nil }
        for dir in searchPath {
            let candidate = XDGDirectories.join(dir, program)
            if FileSystem.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }
}
