import Glibc
import Synchronization

/// Who can change a path: the trust rule of the project. A file or directory is *protected*
/// when it and every directory above it are owned by root and not writable by group or others
/// (a sticky directory such as `/tmp` above a root-owned child is fine: nobody else can rename
/// that child). What a package installs is protected; anything under the user's home, a user
/// Flatpak installation's exports, or a directory another user owns is not. Trust is decided by
/// who can write, never by a directory's name.
public enum SystemPath {
    /// Whether only root can change `path` (or anything above it). Symlinks in the path are judged
    /// as they are (a link in a protected directory cannot be rewritten by the user).
    public static func isProtected(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        var current = path
        var childOwnedByRoot = true
        while true {
            var st = stat()
            guard lstat(current, &st) == 0 else { return false }
            let writableByOthers = (st.st_mode & 0o022) != 0
            let sticky = (st.st_mode & S_ISVTX) != 0 && (st.st_mode & S_IFMT) == S_IFDIR
            if st.st_uid != 0 { return false }
            if writableByOthers && !(sticky && childOwnedByRoot && current != path) { return false }
            childOwnedByRoot = st.st_uid == 0
            if current == "/" { return true }
            current = FileSystem.dirname(current)
        }
    }
}

/// Which applications directories are trusted to claim reserved schemes: protected ones
/// (``SystemPath/isProtected(_:)``) outside the user's side — never `$XDG_DATA_HOME/applications`,
/// nor anything at or below `$HOME` or `$XDG_DATA_HOME` (as written, or after symlinks), whoever
/// owns it: in a root session everything under `/root` is root's, yet it is still what the
/// session's programs write (a user Flatpak installation's exports, the data home reached by
/// another spelling). Decided once per directory and remembered (the answer is a handful of
/// `lstat`s; lookups are one probe).
public final class TrustedDirectories: Sendable {
    private let userApplications: String
    /// `$HOME` and `$XDG_DATA_HOME`, as written and after symlinks (never `/`).
    private let userSide: [String]
    private let known = Mutex<[String: Bool]>([:])

    /// `userDirectories`: the directories whose whole tree is the user's (`$HOME`, `$XDG_DATA_HOME`).
    public init(userApplications: String, userDirectories: [String] = []) {
        self.userApplications = userApplications
        var side: [String] = []
        for d in userDirectories {
            for p in [d, FileSystem.realPath(d)].compactMap({ $0 }) where p != "/" && p.hasPrefix("/") && !side.contains(p) {
                side.append(p.hasSuffix("/") ? String(p.dropLast()) : p)
            }
        }
        self.userSide = side
    }

    /// Whether entries (and association lists) in `directory` may claim reserved schemes.
    public func isTrusted(_ directory: String) -> Bool {
        if directory == userApplications { return false }
        if let answer = known.withLock({ $0[directory] }) { return answer }
        let answer = !isUsersSide(directory) && SystemPath.isProtected(directory)
        known.withLock { $0[directory] = answer }
        return answer
    }

    /// Whether `directory`, as written or after symlinks, is at or below `$HOME` or `$XDG_DATA_HOME`.
    func isUsersSide(_ directory: String) -> Bool {
        let spellings = [directory, FileSystem.realPath(directory)].compactMap { $0 }
        return spellings.contains { path in
            userSide.contains { base in path == base || path.hasPrefix(base + "/") }
        }
    }
}
