import CLinux
import Glibc
import LinuxSystem

/// A failed file-system operation, with the path and the system's reason.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path concerned.
    public var path: String
    /// `errno`, or 0 for our own checks.
    public var code: Int32
    /// What went wrong.
    public var message: String

    public var description: String { "\(path): \(message)" }

    static func errno(_ path: String, _ what: String, _ code: Int32 = Glibc.errno) -> FileSystemError {
        FileSystemError(path: path, code: code, message: "\(what): \(String(cString: strerror(code)))")
    }
}

/// Small POSIX helpers. No Foundation: these run on the watcher thread and at start-up, and must
/// be cheap and predictable.
enum FileSystem {
    /// The largest desktop entry or mimeapps.list read (1 MiB); bigger files are refused.
    static let maximumFileSize = 1 << 20

    /// Reads a regular file of at most `limit` bytes. Opening uses `O_NONBLOCK` so a FIFO named
    /// `x.desktop` cannot block the caller; anything but a regular file is refused.
    static func readFile(_ path: String, limit: Int = maximumFileSize) throws(FileSystemError) -> [UInt8] {
        try readFileWithSignature(path, limit: limit).bytes
    }

    /// ``readFile(_:limit:)``, also returning the signature of the version read.
    static func readFileWithSignature(_ path: String, limit: Int = maximumFileSize) throws(FileSystemError) -> (bytes: [UInt8], signature: FileSignature) {
        do {
            let (bytes, st) = try SmallFile.read(path, limit: limit)
            return (bytes, FileSignature(st))
        } catch {
            switch error {
            case .system(let operation, let e): throw FileSystemError(path: path, code: e.code, message: "cannot \(operation): \(e)")
            case .notRegular: throw FileSystemError(path: path, code: 0, message: "not a regular file")
            case .tooLarge(let size, _): throw FileSystemError(path: path, code: 0, message: "larger than the \(limit / 1024) KiB limit (\(size) bytes)")
            }
        }
    }

    enum Kind: Sendable, Equatable { case file, directory, other, missing }

    /// What `path` is, following symlinks; also its identity and change signature.
    struct Info: Sendable, Equatable {
        var kind: Kind
        var device: UInt64 = 0
        var inode: UInt64 = 0
        var signature: FileSignature = FileSignature()
    }

    static func info(_ path: String) -> Info {
        var st = stat()
        guard stat(path, &st) == 0 else { return Info(kind: .missing) }
        let kind: Kind
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        default: kind = .other
        }
        return Info(kind: kind, device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
                    signature: FileSignature(st))
    }

    static func isSymlink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// The names in a directory (`.`/`..` excluded) with the entry type when known; names that
    /// are not UTF-8 are returned separately so the caller can warn.
    /// With `types`, only entries of those `d_type`s get a name decoded (listing the
    /// subdirectories of a folder of 10,000 files then costs no 10,000 strings).
    static func list(_ path: String, types: Set<UInt8>? = nil) throws(FileSystemError) -> (entries: [(name: String, type: UInt8)], undecodable: Int) {
        guard let dir = opendir(path) else { throw .errno(path, "cannot open directory") }
        defer { closedir(dir) }
        var entries: [(String, UInt8)] = []
        var undecodable = 0
        while true {
            Glibc.errno = 0
            guard let ent = readdir(dir) else { break }
            let type = ent.pointee.d_type
            if let types, !types.contains(type) { continue }
            let name: String? = withUnsafePointer(to: &ent.pointee.d_name) { ptr in
                ptr.withMemoryRebound(to: CChar.self, capacity: 256) { String(validatingCString: $0) }
            }
            guard let name else {
                undecodable += 1
                continue
            }
            if name == "." || name == ".." { continue }
            entries.append((name, type))
        }
        return (entries, undecodable)
    }

    /// The names in a directory (`.`/`..` excluded) as the kernel gives them, bytes (a name need
    /// not be UTF-8), with the entry type when known.
    static func listNames(_ path: String) throws(FileSystemError) -> [(name: [UInt8], type: UInt8)] {
        guard let dir = opendir(path) else { throw .errno(path, "cannot open directory") }
        defer { closedir(dir) }
        var entries: [([UInt8], UInt8)] = []
        while let ent = readdir(dir) {
            let name: [UInt8] = withUnsafePointer(to: &ent.pointee.d_name) { ptr in
                ptr.withMemoryRebound(to: UInt8.self, capacity: 256) { Array(UnsafeBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)))) }
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            entries.append((name, ent.pointee.d_type))
        }
        return entries
    }

    /// Runs `body` with `path` (bytes, any a file name may hold) as a C string.
    static func withPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }

    /// `path` joined to `name` (bytes) with one `/`.
    static func join(_ path: String, _ name: [UInt8]) -> [UInt8] {
        var out = Array(path.utf8)
        if out.last != UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
        return out + name
    }

    /// Whether `path` is an executable regular file.
    static func isExecutableFile(_ path: String) -> Bool {
        let i = info(path)
        return i.kind == .file && access(path, X_OK) == 0
    }

    /// The target of the symbolic link at `path` as text (a byte that is not UTF-8 shows as
    /// U+FFFD), at most `capacity` bytes of it; nil when `path` is no link or cannot be read
    /// (`errno` says why). The one `readlink` of the core.
    static func linkTarget(_ path: String, capacity: Int = Int(PATH_MAX)) -> String? {
        var buffer = [CChar](repeating: 0, count: capacity + 1)
        let n = readlink(path, &buffer, capacity)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical absolute path of `path` (symlinks resolved), or nil.
    static func realPath(_ path: String) -> String? {
        guard !path.isEmpty, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Follows `path` through symlinks (even a dangling final one) to the file a write should
    /// replace. Relative link targets are resolved against the link's directory. At most 40
    /// links are followed.
    static func resolveWriteTarget(_ path: String) throws(FileSystemError) -> String {
        var current = path
        for _ in 0..<40 {
            guard isSymlink(current) else { return current }
            guard let target = linkTarget(current) else { throw .errno(current, "cannot read symbolic link") }
            if target.hasPrefix("/") {
                current = target
            } else {
                current = XDGDirectories.join(dirname(current), target)
            }
        }
        throw FileSystemError(path: path, code: ELOOP, message: "too many levels of symbolic links")
    }

    static func dirname(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func basename(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `mkdir -p` with `mode` for the directories it creates.
    static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(FileSystemError) {
        if info(path).kind == .directory { return }
        let parent = dirname(path)
        if parent != path && parent != "." { try makeDirectories(parent, mode: mode) }
        if mkdir(path, mode) != 0 && Glibc.errno != EEXIST { throw .errno(path, "cannot create directory") }
        guard info(path).kind == .directory else {
            throw FileSystemError(path: path, code: ENOTDIR, message: "exists and is not a directory")
        }
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same directory, written,
    /// `fsync`ed, given the old file's permissions (or `defaultMode`), renamed over `path`, then
    /// the directory is `fsync`ed. On failure the old file is untouched and the temporary file is
    /// removed.
    static func writeAtomically(_ bytes: [UInt8], to path: String, defaultMode: mode_t = 0o644) throws(FileSystemError) {
        let temp = try writeTemporary(bytes, beside: path, defaultMode: defaultMode)
        if rename(temp.path, path) != 0 {
            let e = FileSystemError.errno(path, "cannot replace")
            unlink(temp.path)
            throw e
        }
        syncDirectory(of: path)
    }

    /// Writes `bytes` to a new, `fsync`ed temporary file beside `path` with `path`'s permissions
    /// (or `defaultMode`); returns its path and signature. The caller renames or removes it.
    static func writeTemporary(_ bytes: [UInt8], beside path: String, defaultMode: mode_t = 0o644) throws(FileSystemError) -> (path: String, signature: FileSignature) {
        let dir = dirname(path)
        var template = Array("\(dir)/.\(basename(path)).XXXXXX".utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if raw < 0 { throw .errno(dir, "cannot create a temporary file") }
        let fd = FileDescriptor(owning: raw)
        let tempPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do throws(FileSystemError) {
            var mode = defaultMode
            var st = stat()
            if stat(path, &st) == 0 { mode = st.st_mode & 0o7777 }
            if fchmod(fd.rawValue, mode) != 0 { throw FileSystemError.errno(tempPath, "cannot set permissions") }
            do { try fd.writeAll(bytes) } catch {
                throw FileSystemError.errno(tempPath, "cannot write", error.code)
            }
            if fsync(fd.rawValue) != 0 { throw FileSystemError.errno(tempPath, "cannot sync") }
            let done: stat
            do { done = try fd.status() } catch { throw FileSystemError.errno(tempPath, "cannot stat", error.code) }
            return (tempPath, FileSignature(done))
        } catch {
            unlink(tempPath)
            throw error
        }
    }

    /// Swaps `a` and `b` atomically (`renameat2(RENAME_EXCHANGE)`).
    static func exchange(_ a: String, _ b: String) throws(FileSystemError) {
        let rc = clinux_rename_exchange(a, b)
        if rc != 0 { throw .errno(b, "cannot exchange with \(a)", rc) }
    }

    /// Renames `from` to `to` unless `to` exists; false when it does.
    static func renameIfAbsent(_ from: String, _ to: String) throws(FileSystemError) -> Bool {
        let rc = clinux_rename_noreplace(from, to)
        if rc == EEXIST { return false }
        if rc != 0 { throw .errno(to, "cannot create", rc) }
        return true
    }

    /// `fsync`s the directory holding `path`, so a rename in it is durable.
    static func syncDirectory(of path: String) {
        if let directory = try? FileDescriptor.open(dirname(path), O_RDONLY | O_DIRECTORY) { _ = fsync(directory.rawValue) }
    }
}

/// What identifies a version of a file cheaply: device, inode, size and modification time.
struct FileSignature: Sendable, Equatable, Hashable {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: Int64 = 0
    var mtimeSeconds: Int = 0
    var mtimeNanoseconds: Int = 0
    var ctimeSeconds: Int = 0
    var ctimeNanoseconds: Int = 0

    init() {}

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        mtimeSeconds = st.st_mtim.tv_sec
        mtimeNanoseconds = st.st_mtim.tv_nsec
        ctimeSeconds = st.st_ctim.tv_sec
        ctimeNanoseconds = st.st_ctim.tv_nsec
    }
}
