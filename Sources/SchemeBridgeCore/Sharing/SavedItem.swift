import Glibc
import LinuxSystem

/// "Save to…": the shared item's bytes written to the file the user chose in the save dialog.
public enum SavedItem {
    /// Writes everything `source` holds (from where it stands) to `path`, replacing it whole or
    /// not at all: the bytes go to a new temporary file beside it (`.NAME.schemebridge-XXXXXX`,
    /// never a name the user's files have), which is `fsync`ed and renamed over `path`. A copy
    /// that fails half way (the source's read, a full disk) removes the temporary file and leaves
    /// `path` as it was; a program watching the folder never sees it half written.
    ///
    /// A new file is made mode 0644 (less the umask). A file saved over keeps its permission bits,
    /// its owner and, where the owner may give it, its group. Refused, with `path` left alone: a
    /// symbolic link (never followed nor replaced), anything but a regular file (a FIFO, a device,
    /// a directory), a file owned by someone else whose ownership the new file could not keep
    /// (only root can give a file away), and a file in a folder that lets no new file be made
    /// there even though the file itself is writable: writing it in place could leave it half
    /// written, and the user can save under another name or in another folder.
    /// Blocking: run it on a descriptor thread.
    public static func write(from source: Int32, to path: String) throws(ServiceFailure) {
        let (folder, name) = (FileSystem.dirname(path), FileSystem.basename(path))
        let directory: FileDescriptor
        do { directory = try FileDescriptor.open(folder, O_RDONLY | O_DIRECTORY) } catch {
            throw ServiceFailure(.failed, "cannot write \(path): \(error)")
        }
        let existing = try replaced(name, in: directory, path)
        let temp = try Temporary.make(beside: name, in: directory, keeping: existing, path)
        do throws(ServiceFailure) {
            do {
                try FileDescriptor.lending(source) { (input: borrowing FileDescriptor) throws(Errno) in
                    _ = try input.copy(to: temp.file, offset: nil)
                }
            } catch {
                throw ServiceFailure(.failed, "cannot save the shared item to \(path): \(error)")
            }
            do throws(Errno) {
                // After the copy: a write by anyone but root clears a set-user-ID bit.
                if let existing, fchmod(temp.file.rawValue, existing.st_mode & 0o7777) != 0 { throw Errno.current }
                if fsync(temp.file.rawValue) != 0 { throw Errno.current }
                if renameat(directory.rawValue, temp.name, directory.rawValue, name) != 0 { throw Errno.current }
            } catch {
                throw ServiceFailure(.failed, "cannot write \(path): \(error)")
            }
        } catch {
            unlinkat(directory.rawValue, temp.name, 0)
            throw error
        }
        _ = fsync(directory.rawValue)
    }

    /// The `lstat` of the file at `name` that the save replaces; nil when there is none. Throws
    /// for a symbolic link or anything but a regular file.
    private static func replaced(_ name: String, in directory: borrowing FileDescriptor, _ path: String) throws(ServiceFailure) -> stat? {
        var st = stat()
        guard fstatat(directory.rawValue, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw ServiceFailure(.failed, "cannot write \(path): \(Errno.current)")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return st
        case S_IFLNK: throw ServiceFailure(.failed, "cannot write \(path): \(Errno(ELOOP))")
        default: throw ServiceFailure(.failed, "cannot write \(path): not a regular file")
        }
    }

    /// The new file the bytes go to: created in the destination's folder (`O_EXCL`, so a name
    /// that is taken is never opened), removed by the caller unless renamed.
    private struct Temporary: ~Copyable {
        let file: FileDescriptor
        let name: String
        /// How much of the destination's name the temporary name keeps: with the dot before it and
        /// `.schemebridge-XXXXXX` after it, at most `NAME_MAX` bytes.
        static let kept = Int(NAME_MAX) - 1 - ".schemebridge-XXXXXX".utf8.count
        static let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

        /// Private (0600) while it is written when it replaces `existing` (whose mode it gets at
        /// the end), given `existing`'s owner and group; 0644 less the umask for a new file.
        static func make(beside destination: String, in directory: borrowing FileDescriptor, keeping existing: stat?, _ path: String) throws(ServiceFailure) -> Temporary {
            let temp: Temporary
            do throws(Errno) {
                temp = try create(beside: destination, in: directory, mode: existing == nil ? 0o644 : 0o600)
            } catch where existing != nil && (error.code == EACCES || error.code == EPERM) {
                throw ServiceFailure(.failed, "cannot write \(path): its folder lets no new file be made there (\(error)); "
                                     + "a file is only ever replaced whole, never rewritten in place: save it elsewhere")
            } catch {
                throw ServiceFailure(.failed, "cannot write \(path): cannot make a file in its folder: \(error)")
            }
            guard let existing else { return temp }
            do throws(Errno) {
                let made = try temp.file.status()
                if made.st_uid == existing.st_uid && made.st_gid == existing.st_gid { return temp }
                // The group where the owner may give it; the owner always, or the save is refused.
                if fchown(temp.file.rawValue, existing.st_uid, existing.st_gid) == 0 || made.st_uid == existing.st_uid { return temp }
                throw Errno.current
            } catch {
                unlinkat(directory.rawValue, temp.name, 0)
                throw ServiceFailure(.failed, "cannot write \(path): it belongs to another user, and a file replacing it could not keep its owner (\(error))")
            }
        }

        /// A new file `.NAME.schemebridge-XXXXXX` (six random letters or digits, again while the
        /// name is taken), `O_NOFOLLOW`, made with `mode` less the umask.
        private static func create(beside destination: String, in directory: borrowing FileDescriptor, mode: mode_t) throws(Errno) -> Temporary {
            var prefix = ""
            for c in destination where prefix.utf8.count + c.utf8.count <= kept { prefix.append(c) }
            var attempt = 0
            while true {
                attempt += 1
                let name = "." + prefix + ".schemebridge-" + String((0..<6).map { _ in letters.randomElement()! })
                do throws(Errno) {
                    return Temporary(file: try directory.open(relative: name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode), name: name)
                } catch where error.code == EEXIST && attempt < 100 {}
            }
        }
    }
}
