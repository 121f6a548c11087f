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
/// (``SystemPath/isProtected(_:)``), never `$XDG_DATA_HOME/applications`. Decided once per
/// directory and remembered (the answer is a handful of `lstat`s; lookups are one probe).
public final class TrustedDirectories: Sendable {
    private let userApplications: String
    private let known = Mutex<[String: Bool]>([:])

    public init(userApplications: String) { self.userApplications = userApplications }

    /// Whether entries (and association lists) in `directory` may claim reserved schemes.
    public func isTrusted(_ directory: String) -> Bool {
        if directory == userApplications { return false }
        if let answer = known.withLock({ $0[directory] }) { return answer }
        let answer = SystemPath.isProtected(directory)
        known.withLock { $0[directory] = answer }
        return answer
    }
}
