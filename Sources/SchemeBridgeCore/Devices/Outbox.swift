import Glibc
import LinuxSystem

/// Where data that is not a file (pasteboard bytes, image data) becomes a file an engine can
/// send: `$XDG_RUNTIME_DIR/schemebridge/outbox` (0700, the user's own, never a symlink). Each
/// item is a directory `<expiry>-<random>` (the expiry in seconds since the epoch) holding one
/// file under the item's own name, 0600, so the receiving device sees that name. A sweep removes
/// every item whose expiry has passed; the service sweeps at start and when the next item
/// expires. Blocking: call it from a thread of its own.
public struct Outbox: Sendable {
    /// The outbox directory.
    public let directory: String
    /// Seconds an item is kept (the engine reads the file while it sends; an hour is ample).
    public let lifetime: Int64

    /// The default lifetime of an item: an hour.
    public static let defaultLifetime: Int64 = 3600
    /// The most bytes one item may hold.
    public static let maximumItemBytes: Int64 = 1 << 31

    public init(directory: String, lifetime: Int64 = Outbox.defaultLifetime) {
        self.directory = directory
        self.lifetime = max(1, lifetime)
    }

    /// The outbox of `environment`: nil without an absolute `XDG_RUNTIME_DIR` (no private,
    /// per-session place exists then, and `/tmp` is no such place).
    public init?(environment: [String: String], lifetime: Int64 = Outbox.defaultLifetime) {
        guard let run = environment["XDG_RUNTIME_DIR"], run.hasPrefix("/") else { return nil }
        self.init(directory: XDGDirectories.join(XDGDirectories.join(run, "schemebridge"), "outbox"), lifetime: lifetime)
    }

    /// Creates the outbox (0700) or checks the one there: a directory of this user's, not a
    /// symlink; its mode is set to 0700.
    public func prepare() throws(FileSystemError) {
        try FileSystem.makeDirectories(directory, mode: 0o700)
        var st = stat()
        guard lstat(directory, &st) == 0 else { throw .errno(directory, "cannot examine") }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw FileSystemError(path: directory, code: ENOTDIR, message: "the outbox is not a directory (a symlink?); not used")
        }
        guard st.st_uid == geteuid() else {
            throw FileSystemError(path: directory, code: EPERM, message: "the outbox belongs to another user; not used")
        }
        if st.st_mode & 0o777 != 0o700, chmod(directory, 0o700) != 0 { throw .errno(directory, "cannot make private") }
    }

    /// A file name safe to create: the last component of `name`, without NUL, `/` or control
    /// characters, not `.`/`..`, at most 200 bytes; "shared" when nothing is left.
    public static func fileName(_ name: String?) -> String {
        let last = (name ?? "").split(separator: "/").last.map(String.init) ?? ""
        var cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        while cleaned.utf8.count > 200 { cleaned.removeFirst() }
        cleaned = String(cleaned.drop { $0 == "." || $0 == " " })
        return cleaned.isEmpty ? "shared" : cleaned
    }

    /// Writes `bytes` as a new item named `name`; returns its path.
    public func place(_ bytes: [UInt8], name: String?, now: Int64) throws(FileSystemError) -> String {
        try place(name: name, now: now) { fd, path throws(FileSystemError) in
            do throws(Errno) { try fd.writeAll(bytes) } catch { throw .errno(path, "cannot write", error.code) }
        }
    }

    /// Copies what `source` reads from its current position (to its end, at most
    /// ``maximumItemBytes``) into a new item; `source` may be a pipe.
    public func place(copying source: borrowing FileDescriptor, name: String?, now: Int64) throws(FileSystemError) -> String {
        try place(name: name, now: now) { fd, path throws(FileSystemError) in
            let copied: Int64
            do throws(Errno) { copied = try source.copy(to: fd, offset: nil, limit: Self.maximumItemBytes + 1) } catch {
                throw .errno(path, "cannot copy the data", error.code)
            }
            guard copied <= Self.maximumItemBytes else {
                throw FileSystemError(path: path, code: EFBIG, message: "the data is larger than an outbox item may be (\(Self.maximumItemBytes) bytes)")
            }
        }
    }

    private func place(name: String?, now: Int64, fill: (borrowing FileDescriptor, String) throws(FileSystemError) -> Void) throws(FileSystemError) -> String {
        try prepare()
        let random = UInt64.random(in: 0...UInt64.max)
        let item = XDGDirectories.join(directory, "\(now + lifetime)-\(String(random, radix: 16))")
        guard mkdir(item, 0o700) == 0 else { throw .errno(item, "cannot create") }
        let path = XDGDirectories.join(item, Self.fileName(name))
        let fd: FileDescriptor
        do { fd = try FileDescriptor.openNoFollow(path, .createNew(permissions: 0o600)) } catch {
            rmdir(item)
            throw .errno(path, "cannot create", error.code)
        }
        do throws(FileSystemError) {
            try fill(fd, path)
        } catch {
            unlink(path)
            rmdir(item)
            throw error
        }
        return path
    }

    /// The expiry encoded in an item's directory name, nil for anything else.
    static func expiry(ofItem name: String) -> Int64? {
        guard let dash = name.firstIndex(of: "-") else { return nil }
        return Int64(name[..<dash])
    }

    /// Removes every item that expired by `now` (all of them with `now` = `Int64.max`); returns
    /// how many were removed and the earliest expiry of those left (nil: none left).
    @discardableResult
    public func sweep(now: Int64) -> (removed: Int, nextExpiry: Int64?) {
        guard let dir = opendir(directory) else { return (0, nil) }
        defer { closedir(dir) }
        var removed = 0
        var next: Int64? = nil
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let expiry = Self.expiry(ofItem: name) else { continue }
            guard expiry <= now else {
                next = min(next ?? expiry, expiry)
                continue
            }
            if Self.removeItem(XDGDirectories.join(directory, name)) { removed += 1 }
        }
        return (removed, next)
    }

    /// Removes an item directory and the files in it (nothing is followed: symlinks are unlinked).
    private static func removeItem(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }
        guard st.st_mode & S_IFMT == S_IFDIR else { return unlink(path) == 0 }
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlinkat(dirfd(dir), name, 0) }
            }
            closedir(dir)
        }
        return rmdir(path) == 0
    }
}
