import Glibc

/// When an installed entry may name the caller that runs its program (identity by `Exec`).
///
/// Any program of the user can write an entry into a directory the user can write
/// (`~/.local/share/applications`, a user Flatpak installation's exports…), so such an entry
/// must not decide who a *system* program is: `Exec=/usr/bin/dbus-send` there would make every
/// `dbus-send` caller that app. The rule: an entry names the caller running program P when
/// - the entry is a system entry — its file and every directory above it are owned by root and
///   not writable by group or others (a sticky directory such as `/tmp` above a root-owned one
///   is fine), and it is not in `$XDG_DATA_HOME/applications`; or
/// - P is the user's own program — P (resolved) or a directory above it is not such a system
///   file, or P is under `$HOME`: whoever could write the entry could write P as well.
///
/// For a root session, where everything is root's, `$XDG_DATA_HOME/applications` and `$HOME`
/// still mark the user's side.
public struct ExecIdentityRule: Sendable {
    /// `$HOME`.
    public let home: String
    /// `$XDG_DATA_HOME/applications`.
    public let userApplications: String

    public init(home: String, userApplications: String) {
        self.home = home
        self.userApplications = userApplications
    }

    /// The rule for `directories` (`$HOME`, `$XDG_DATA_HOME/applications`).
    public init(directories: XDGDirectories) {
        self.init(home: directories.home, userApplications: XDGDirectories.join(directories.dataHome, "applications"))
    }

    /// Whether the entry at `entryPath` (found in `applicationsDirectory`) may name the caller
    /// running `program` (an absolute, resolved path).
    public func entry(at entryPath: String, in applicationsDirectory: String, mayName program: String) -> Bool {
        if !Self.isUnder(applicationsDirectory, userApplications) && Self.isSystemPath(entryPath) { return true }
        return Self.isUnder(program, home) || !Self.isSystemPath(program)
    }

    /// Whether `path` is what only root can change (``SystemPath/isProtected(_:)``).
    public static func isSystemPath(_ path: String) -> Bool { SystemPath.isProtected(path) }

    /// Whether `path` is `directory` or inside it.
    static func isUnder(_ path: String, _ directory: String) -> Bool {
        guard !directory.isEmpty, directory != "/" else { return false }  // no home: nothing is "under" it
        return path == directory || path.hasPrefix(directory.hasSuffix("/") ? directory : directory + "/")
    }
}
