import Glibc

/// What the scan and the watcher walk below an applications directory: its subdirectories (for
/// `vendor-name.desktop` IDs), but never out of it — a symlinked directory is followed only when
/// it points inside the same applications directory, so `applications/x -> /` adds no file and
/// no inotify watch — and at most ``maximumDirectories`` directories (inotify watches are the
/// user's shared budget).
enum ApplicationsTree {
    /// Directories walked (and watched) per applications directory at most.
    static let maximumDirectories = 4096

    /// Whether the directory at `path`, listed with `d_type` `type`, is part of the tree rooted
    /// at `root`: a real directory always; a symlink only when it resolves inside `root`.
    static func mayDescend(into path: String, type: UInt8, root: String) -> Bool {
        if type == UInt8(DT_DIR) { return true }
        guard FileSystem.isSymlink(path) else { return true }
        guard let real = FileSystem.realPath(path), let realRoot = FileSystem.realPath(root) else { return false }
        return real == realRoot || real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
    }
}
