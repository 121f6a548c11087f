import Glibc
import LinuxSystem

/// "Save to…": the shared item's bytes written to the file the user chose in the save dialog.
public enum SavedItem {
    /// Writes everything `source` holds (from where it stands) to `path`: created or truncated,
    /// mode 0644, a symlink at `path` not followed. Blocking: run it on a descriptor thread.
    public static func write(from source: Int32, to path: String) throws(ServiceFailure) {
        let out = try create(path)
        do {
            try FileDescriptor.lending(source) { (input: borrowing FileDescriptor) throws(Errno) in
                _ = try input.copy(to: out, offset: nil)
            }
        } catch {
            throw ServiceFailure(.failed, "cannot save the shared item to \(path): \(error)")
        }
    }

    private static func create(_ path: String) throws(ServiceFailure) -> FileDescriptor {
        do { return try FileDescriptor.openNoFollow(path, .createOrTruncate(permissions: 0o644)) } catch {
            throw ServiceFailure(.failed, "cannot write \(path): \(error)")
        }
    }
}
