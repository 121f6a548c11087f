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

    /// Whether the program that ``find(_:searchPath:)`` finds for `program` may be a symbolic
    /// link: the one way its real path can end in another name than `program`'s own. False only
    /// when known to be no link (or absent): each directory is listed once into `listings` (the
    /// names of its symbolic links and of entries whose type the file system does not say); a
    /// directory that cannot be listed may hold one. Costs a listing per directory, not a path
    /// walk per program.
    static func mayBeSymlink(_ program: String, searchPath: [String], listings: inout [String: Set<String>?]) -> Bool {
        if program.isEmpty { return false }
        if program.hasPrefix("/") { return mayHoldLink(FileSystem.dirname(program), named: FileSystem.basename(program), listings: &listings) }
        if program.contains("/") { return false }
        return searchPath.contains { mayHoldLink($0, named: program, listings: &listings) }
    }

    private static func mayHoldLink(_ directory: String, named name: String, listings: inout [String: Set<String>?]) -> Bool {
        if name.isEmpty { return true }
        return linkNames(in: directory, listings: &listings)?.contains(name) ?? true
    }

    /// The names in `directory` that may be symbolic links (links, and entries whose type the
    /// file system does not say); nil when it cannot be listed. Listed once into `listings`, and
    /// once for every name of it: `/bin` and `/usr/bin` on a merged `/usr` are one directory
    /// (the same device and inode), listed once (~1,400 names, on the path of a new caller's
    /// first answer).
    static func linkNames(in directory: String, listings: inout [String: Set<String>?]) -> Set<String>? {
        if let known = listings[directory] { return known }
        var st = stat()
        // A key no path can be (paths hold no NUL).
        let identity = stat(directory, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR ? "\u{0}\(st.st_dev):\(st.st_ino)" : nil
        if let identity, let known = listings[identity] {
            listings[directory] = known
            return known
        }
        let links = (try? FileSystem.list(directory, types: [UInt8(DT_LNK), UInt8(DT_UNKNOWN)])).map { Set($0.entries.map(\.name)) }
        listings[directory] = .some(links)
        if let identity { listings[identity] = .some(links) }
        return links
    }
}
