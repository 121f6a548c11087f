import CLinux
import Glibc
import LinuxSystem
import Synchronization

/// Where a share naming a device looks at a file item (its checks and what ``DeviceFileSource``
/// decides from): on the thread that took the call — the D-Bus loop, no hop — when every call of
/// that look comes back at once, else on a descriptor thread (a hop there and back: the floor
/// for a file that may never answer).
///
/// The look is metadata only: the descriptor's flags and `fstat`, the path the kernel names for
/// it, `stat` and `access` on that path; the item's type comes from its name (a device takes any
/// item, so the type decides nothing and the content is not read). For a file the caller has
/// open, those calls come back at once on a local disk or memory file system (its inode and the
/// path's entries are cached); on FUSE (whose server may never answer), network and stacked file
/// systems they may not. So the look stays on the loop only when the descriptor's mount and every
/// mount its path passes through are of a local type (``localTypes``) — as `/proc/self/fdinfo` and
/// `/proc/self/mountinfo` say, which never touch the file's own file system. Anything not found
/// there (a mount of another namespace, one gone since) is looked at on a thread, as before.
public enum DeviceFileLook {
    /// Local disk and memory file systems.
    public static let localTypes: Set<String> = ["ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "bcachefs", "tmpfs", "ramfs"]

    /// One line of `/proc/self/mountinfo`: the mount's id, where it is mounted, its type.
    public struct Mount: Sendable, Equatable {
        public var id: Int
        public var mountPoint: String
        public var type: String

        public init(id: Int, mountPoint: String, type: String) {
            (self.id, self.mountPoint, self.type) = (id, mountPoint, type)
        }
    }

    /// What the look on the calling thread starts from: the path the kernel names for the
    /// descriptor and, when taken with its mount id, its status (else nil: `fstat` it).
    public struct Seen: Sendable {
        public var path: String
        public var status: stat?

        public init(path: String, status: stat? = nil) {
            (self.path, self.status) = (path, status)
        }
    }

    /// Descriptor `fd` as the look on the calling thread starts from it, when that look may run
    /// there (its mount and every mount its path passes through of a local type), else nil.
    /// Where every mount of this process's table answers `statx` without asking a server
    /// (``MountIndex/statusAnswersAtOnce``), the descriptor's mount id and status come in one
    /// `statx` (no `/proc/self/fdinfo` read, no `fstat` later); otherwise (or when `statx` fails) from
    /// `/proc/self/fdinfo`.
    public static func look(fd: Int32) -> Seen? {
        guard let index = table.index() else { return nil }
        var id: UInt64 = 0, status = stat()
        if index.statusAnswersAtOnce, clinux_fd_status(fd, &id, &status) == 0 {
            guard let path = kernelPath(of: fd), let mountID = Int(exactly: id), index.isLocal(mountID: mountID, path: path) else { return nil }
            return Seen(path: path, status: status)
        }
        guard let path = kernelPath(of: fd), let id = mountID(of: fd), index.isLocal(mountID: id, path: path) else { return nil }
        return Seen(path: path)
    }

    /// Whether descriptor `fd`, named `path` by the kernel, is looked at on the calling thread
    /// (reads this process's `/proc` files; false when they cannot be read).
    public static func isLocal(fd: Int32, path: String) -> Bool {
        guard let id = mountID(of: fd), let index = table.index() else { return false }
        return index.isLocal(mountID: id, path: path)
    }

    /// File systems whose `statx` of an open file, "don't sync", never waits for a server or a
    /// device: the local ones, memory and kernel ones, and those that answer from their cache when
    /// told not to sync (FUSE — `fuse.*` too —, NFS, CIFS/SMB, Ceph, and overlay, which passes the
    /// flag to what it stacks). Not 9p, which asks its server at every `statx`.
    public static let statusAtOnceTypes: Set<String> = localTypes.union([
        "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "mqueue", "tracefs", "debugfs", "securityfs", "pstore", "bpf",
        "hugetlbfs", "configfs", "fusectl", "efivarfs", "binfmt_misc", "autofs", "nsfs", "selinuxfs", "squashfs", "erofs", "iso9660",
        "vfat", "exfat", "ntfs3", "fuse", "fuseblk", "nfs", "nfs4", "cifs", "smb3", "ceph", "overlay",
    ])

    /// Whether `type` (a mountinfo type, `fuse.sshfs` say) is one of ``statusAtOnceTypes``.
    static func answersStatusAtOnce(_ type: String) -> Bool {
        statusAtOnceTypes.contains(type) || type.hasPrefix("fuse.") || type.hasPrefix("fuseblk.")
    }

    /// This process's mount table, read again only when the kernel says it changed.
    static let table = MountTable()

    /// `/proc/self/fdinfo`, kept open for the process's life (nil when it could not be opened): a
    /// descriptor's file there is opened relative to it (one name looked up, not four), read once
    /// and closed.
    private static let fdinfo: FileDescriptor? = try? FileDescriptor.open("/proc/self/fdinfo", O_RDONLY | O_DIRECTORY)

    /// `/proc/self/fd`, kept open for the process's life (nil when it could not be opened): a
    /// descriptor's link there is read relative to it (one name looked up, not four).
    private static let fdLinks: FileDescriptor? = try? FileDescriptor.open("/proc/self/fd", O_RDONLY | O_DIRECTORY)

    /// The path the kernel names for descriptor `fd` (its `/proc/self/fd` link, read through the
    /// kept directory), when it is absolute, whole and valid UTF-8 — what
    /// `SharedFileFacts.kernelPath(of:)` gives, in one `readlinkat` of one name.
    public static func kernelPath(of fd: Int32) -> String? {
        switch fdLinks {
        case .none:
            return FileDescriptor.lending(fd) { SharedFileFacts.kernelPath(of: $0) }
        case .some(let links):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX)) { buffer -> String? in
                guard let n = try? links.readLink(relative: String(fd), into: buffer),
                      n > 0, n < Int(PATH_MAX), buffer[0] == UInt8(ascii: "/") else { return nil }
                // Valid UTF-8 only: decoded, a valid path is the same bytes (a repaired one is not). `String(validating:as:)`
                // runs its generic validation unspecialized, through the runtime's metadata, at every look.
                let bytes = UnsafeBufferPointer(rebasing: buffer[..<n]), path = String(decoding: bytes, as: UTF8.self)
                let same = path.utf8.count == n && (path.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? path.utf8.elementsEqual(bytes))
                return same ? path : nil
            }
        }
    }

    /// The id of the mount descriptor `fd`'s file is on, from its `/proc/self/fdinfo` file (the
    /// kernel writes it from the open file alone: the file's own file system is not asked).
    static func mountID(of fd: Int32) -> Int? {
        switch fdinfo {
        case .none:
            return nil
        case .some(let directory):
            // Closed when this returns.
            guard let file = try? directory.open(relative: String(fd), O_RDONLY) else { return nil }
            // `mnt_id` is the third line (after `pos` and `flags`): one read holds it.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { text -> Int? in
                guard let n = try? file.read(into: UnsafeMutableRawBufferPointer(text)), n > 0 else { return nil }
                return mountID(fdinfo: Array(text[..<n]))
            }
        }
    }

    /// Whether a file on mount `mountID` named `path` (absolute, as the kernel names it) is
    /// looked at on the calling thread, `mounts` being the process's mount table: its own mount
    /// and every mount whose mount point is `path` or above it are of a local type.
    public static func isLocal(mountID: Int, path: String, mounts: [Mount]) -> Bool {
        MountIndex(mounts).isLocal(mountID: mountID, path: path)
    }

    /// A mount table as ``isLocal(mountID:path:mounts:)`` asks it, made once per table read: the
    /// ids of the local mounts and the mount points of the others.
    struct MountIndex: Sendable {
        /// The ids whose (first) line names a local type.
        let localIDs: Set<Int>
        /// The other mounts' mount points, each as the bytes a path within it starts with
        /// (`dir/`); nil when one of them is `/` (every path passes through it).
        let otherPrefixes: [[UInt8]]?
        /// Whether every mount is of a type whose `statx` of an open file, "don't sync", answers
        /// at once (``statusAtOnceTypes``). A descriptor a caller sends from another mount
        /// namespace may be on a mount this table does not list: an unprivileged caller can
        /// mount only types that answer at once (tmpfs, FUSE, overlay, proc…); any other mount
        /// is the administrator's.
        let statusAnswersAtOnce: Bool

        init(_ mounts: [Mount]) {
            var seen = Set<Int>(), local = Set<Int>(), prefixes: [[UInt8]]? = []
            statusAnswersAtOnce = mounts.allSatisfy { DeviceFileLook.answersStatusAtOnce($0.type) }
            for mount in mounts {
                if seen.insert(mount.id).inserted, localTypes.contains(mount.type) { local.insert(mount.id) }
                guard !localTypes.contains(mount.type) else { continue }
                var dir = Array(mount.mountPoint.utf8)
                while dir.count > 1 && dir.last == UInt8(ascii: "/") { dir.removeLast() }
                if dir.isEmpty { continue }
                if dir == [UInt8(ascii: "/")] { prefixes = nil; continue }
                prefixes?.append(dir + [UInt8(ascii: "/")])
            }
            (localIDs, otherPrefixes) = (local, prefixes)
        }

        /// Whether a file on mount `mountID` named `path` is on a local mount reached through
        /// local mounts alone (no other mount's mount point is `path` or above it).
        func isLocal(mountID: Int, path: String) -> Bool {
            guard localIDs.contains(mountID), let otherPrefixes, DeviceFileSource.isPlainAbsolute(path) else { return false }
            var path = path
            return path.withUTF8 { bytes in
                !otherPrefixes.contains { prefix in
                    bytes.count >= prefix.count - 1 && (bytes.count == prefix.count - 1 ? bytes.elementsEqual(prefix.dropLast()) : bytes.starts(with: prefix))
                }
            }
        }
    }

    /// The `mnt_id` line of a `/proc/self/fdinfo` file's text.
    static func mountID(fdinfo text: [UInt8]) -> Int? {
        for line in text.split(separator: UInt8(ascii: "\n")) where line.starts(with: "mnt_id:".utf8) {
            let digits = line.dropFirst(7).drop { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") }
            return Int(String(decoding: digits, as: UTF8.self))
        }
        return nil
    }

    /// The mounts `/proc/self/mountinfo`'s text lists: `ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS
    /// [OPTIONAL…] - TYPE SOURCE SUPER-OPTIONS`, the mount point's space, tab, newline and
    /// backslash written as octal escapes. Lines it cannot read are left out.
    public static func mounts(_ text: [UInt8]) -> [Mount] {
        text.split(separator: UInt8(ascii: "\n")).compactMap { line -> Mount? in
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 7, let id = Int(String(decoding: fields[0], as: UTF8.self)),
                  let dash = fields.indices.dropFirst(6).first(where: { fields[$0].elementsEqual("-".utf8) }), dash + 1 < fields.count else { return nil }
            return Mount(id: id, mountPoint: unescaped(fields[4]), type: String(decoding: fields[dash + 1], as: UTF8.self))
        }
    }

    /// A mountinfo field with its `\ooo` escapes decoded.
    static func unescaped(_ field: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        var i = field.startIndex
        while i < field.endIndex {
            let digits = field[(i + 1)...].prefix(3)
            if field[i] == UInt8(ascii: "\\"), digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }) {
                out.append(digits.reduce(0) { $0 &* 8 &+ ($1 - UInt8(ascii: "0")) })
                i += 4
            } else {
                out.append(field[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// `/proc/self/mountinfo`, kept open and read again only after the kernel marked it changed (a
/// mount or unmount makes `poll` report `POLLPRI` on it, once), so a look costs one `poll`.
final class MountTable: Sendable {
    /// The table as last read: its mounts, and as the look asks them.
    private struct Table {
        var mounts: [DeviceFileLook.Mount]
        var index: DeviceFileLook.MountIndex

        init(_ text: [UInt8]) {
            mounts = DeviceFileLook.mounts(text)
            index = DeviceFileLook.MountIndex(mounts)
        }
    }

    /// `/proc/self/mountinfo`, kept open (closed with this value), and the table read from it.
    private struct Kept: ~Copyable {
        let file: FileDescriptor
        var table: Table

        /// The table now: read again when the kernel marked it changed; nil when that read failed.
        mutating func now() -> Table? {
            var changed = pollfd(fd: file.rawValue, events: Int16(POLLPRI), revents: 0)
            guard poll(&changed, 1, 0) > 0, changed.revents & Int16(POLLPRI | POLLERR) != 0 else { return table }
            guard lseek(file.rawValue, 0, SEEK_SET) == 0, let text = MountTable.read(file) else { return nil }
            table = Table(text)
            return table
        }
    }

    private let state = Mutex<Kept?>(nil)

    /// The mounts now; nil when the table cannot be read.
    func mounts() -> [DeviceFileLook.Mount]? { current()?.mounts }

    /// The mounts now as the look asks them; nil when the table cannot be read.
    func index() -> DeviceFileLook.MountIndex? { current()?.index }

    private func current() -> Table? {
        state.withLock { kept -> Table? in
            if kept != nil { return kept?.now() }
            // Closed when it is not kept.
            guard let file = try? FileDescriptor.open("/proc/self/mountinfo", O_RDONLY) else { return nil }
            var armed = pollfd(fd: file.rawValue, events: Int16(POLLPRI), revents: 0)
            _ = poll(&armed, 1, 0)  // the first poll reports the table's state as seen now
            guard let text = Self.read(file) else { return nil }
            kept = Kept(file: file, table: Table(text))
            return kept?.table
        }
    }

    /// What `file` holds from where it is (at most 4 MiB).
    fileprivate static func read(_ file: borrowing FileDescriptor) -> [UInt8]? {
        withUnsafeTemporaryAllocation(byteCount: 16384, alignment: 1) { buffer -> [UInt8]? in
            var out: [UInt8] = []
            while out.count < 1 << 22 {
                guard let n = try? file.read(into: buffer) else { return nil }
                if n == 0 { return out }
                out += buffer[..<n]
            }
            return nil
        }
    }
}

/// A share naming a device: the look at its file items on the calling thread (``DeviceFileLook``).
public struct DeviceLocalLook: Sendable {
    /// File `fd` as its look starts (its path, its status when taken already) when that look may
    /// run on the calling thread (none of its calls can block), else nil: read once, and given
    /// to the rest of the look.
    public let look: @Sendable (Int32) -> DeviceFileLook.Seen?
    /// The facts of file `fd` named `name`, whose path and `fstat` are the given ones (only for a
    /// file that has a ``look``).
    public let facts: @Sendable (Int32, String, String, stat) -> SharedFileFacts

    public init(look: @escaping @Sendable (Int32) -> DeviceFileLook.Seen?, facts: @escaping @Sendable (Int32, String, String, stat) -> SharedFileFacts) {
        (self.look, self.facts) = (look, facts)
    }

    /// A look from the path alone (the status taken by `fstat`).
    public init(kernelPath: @escaping @Sendable (Int32) -> String?, facts: @escaping @Sendable (Int32, String, String, stat) -> SharedFileFacts) {
        self.init(look: { fd in kernelPath(fd).map { DeviceFileLook.Seen(path: $0) } }, facts: facts)
    }

    /// The path the kernel names for file `fd` when its look may run on the calling thread.
    public func kernelPath(_ fd: Int32) -> String? { look(fd)?.path }

    /// Whether file `fd`'s look may run on the calling thread.
    public func isLocal(_ fd: Int32) -> Bool { look(fd) != nil }
}

extension Documents {
    /// What ``inspect(_:contentType:)`` checks and finds — a readable regular file and its name —
    /// with the type from the name alone: the descriptor's metadata only, no content read and no
    /// look at the MIME directories (the database as last loaded). For a share naming a device,
    /// whose items' types decide nothing (``DeviceFileLook``). `kernelPath`, when given, is the
    /// descriptor's path as read already (not read again); `status`, when given, its status as
    /// taken already (else `fstat`); the status checked is returned.
    @usableFromInline
    func inspectByName(_ descriptor: borrowing FileDescriptor, kernelPath: String? = nil, status given: stat? = nil) throws(OpenFailure) -> (name: String, type: ContentType, status: stat) {
        let (name, status) = try readableFile(descriptor, kernelPath: kernelPath.map { Array($0.utf8) }, status: given)
        return (name, ContentType(detected: types.guess(name: name, data: nil).type), status)
    }
}
