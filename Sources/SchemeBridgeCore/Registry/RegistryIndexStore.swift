import Glibc
import LinuxSystem

/// Where the registry keeps its index, if anywhere.
public enum RegistryIndexLocation: Sendable, Equatable {
    /// `$XDG_CACHE_HOME/schemebridge/` (or `~/.cache/schemebridge/`) of the registry's
    /// environment.
    case automatic
    /// No index: every start scans the desktop files.
    case disabled
    /// This directory (tests, benchmarks).
    case directory(String)
}

/// The index file of one configuration: finding, trusting, reading and replacing it.
struct RegistryIndexStore: Sendable {
    /// The cache directory.
    let directory: String
    /// The folder that must already exist for the index to be written (the home, or the parent of
    /// `XDG_CACHE_HOME`): the cache folders below it are made when missing, a home never — a
    /// service whose home was removed (or a test's, after its tree went) writes nothing.
    let base: String?
    /// The index file (its name carries a hash of the configuration, so two configurations —
    /// another locale, other data directories — keep two files instead of rewriting one).
    let path: String
    let configurationKey: String

    /// The largest index file read (1 GiB); anything bigger is refused.
    static let maximumSize = 1 << 30

    init?(location: RegistryIndexLocation, environment: [String: String], configurationKey: String) {
        let dir: String
        switch location {
        case .disabled:
            return nil
        case .directory(let d):
            (dir, base) = (d, nil)
        case .automatic:
            if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
                (dir, base) = (XDGDirectories.join(cache, "schemebridge"), FileSystem.dirname(cache))
            } else {
                let home = XDGDirectories(environment: environment).home
                (dir, base) = (XDGDirectories.join(home, ".cache/schemebridge"), home)
            }
        }
        self.directory = dir
        self.configurationKey = configurationKey
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in configurationKey.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
        let hex = String(hash, radix: 16)
        self.path = XDGDirectories.join(dir, "registry-" + String(repeating: "0", count: 16 - hex.count) + hex + ".index")
    }

    /// The outcome of reading the index.
    enum Loaded {
        /// There is none yet (first start, or the cache was cleared): not worth a warning.
        case absent
        case rejected(IndexRejection)
        case loaded(IndexBuffer)
    }

    /// Reads the file in one `read` into one buffer, after checking who owns it.
    func read() -> Loaded {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.openNoFollow(path) } catch {
            return error.code == ENOENT ? .absent : .rejected(IndexRejection("cannot open: \(error)"))
        }
        let file = IndexFile(fd)
        guard let st = try? file.descriptor.status() else { return .rejected(IndexRejection("cannot stat")) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .rejected(IndexRejection("not a regular file")) }
        // The index is trusted as much as the user's own files, and no more.
        guard st.st_uid == geteuid(), st.st_mode & 0o022 == 0 else {
            return .rejected(IndexRejection("not owned by this user, or writable by others"))
        }
        guard Int(st.st_size) <= RegistryIndexStore.maximumSize else { return .rejected(IndexRejection("too large")) }
        guard let buffer = file.readAll() else { return .rejected(IndexRejection("cannot read")) }
        return .loaded(buffer)
    }

    /// Replaces the file atomically: a private temporary file in the cache directory (created
    /// 0700 if missing), written, then renamed over the index. Two services writing at once
    /// each rename a complete file; the last one wins. No `fsync`: a file torn by a crash fails
    /// the length or checksum check and is simply not used.
    func save(_ bytes: [UInt8]) throws(FileSystemError) {
        if let base, FileSystem.info(base).kind != .directory {
            throw FileSystemError(path: base, code: ENOENT, message: "is not a folder (a home is never created for the index)")
        }
        try FileSystem.makeDirectories(directory, mode: 0o700)
        var template = Array(XDGDirectories.join(directory, ".registry.XXXXXX").utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if raw < 0 { throw .errno(directory, "cannot create a temporary file") }
        let fd = FileDescriptor(owning: raw)
        let tempPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var ok = false
        defer { if !ok { unlink(tempPath) } }
        _ = fcntl(fd.rawValue, F_SETFD, FD_CLOEXEC)
        _ = fchmod(fd.rawValue, 0o600)
        do { try fd.writeAll(bytes) } catch {
            throw .errno(tempPath, "cannot write", error.code)
        }
        if rename(tempPath, path) != 0 { throw .errno(path, "cannot replace") }
        ok = true
    }
}
