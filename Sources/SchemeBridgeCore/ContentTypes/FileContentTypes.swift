import Glibc
import LinuxSystem

/// Why a descriptor's type could not be detected.
public struct ContentTypeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` (`EBADF` for an `O_PATH` or write-only descriptor).
    public var code: Int32
    /// What failed: `fstat` or `read`.
    public var operation: String

    public var description: String { "cannot \(operation) the file: \(String(cString: strerror(code)))" }
}

/// Files: the type `gio info -a standard::content-type` gives, in GLib's order — `inode/*`
/// for anything but a regular file, `text/plain` for an empty one (nothing is read: `/proc`
/// and `/sys` files say they are empty), else the name's type when it is certain, else name
/// and the first bytes together (at most ``sniffLimit``, or the database's magic extent when
/// that is smaller). Only regular files are ever read, so a FIFO, a socket or `/dev/zero`
/// never blocks or floods detection.
extension ContentTypeDatabase {
    /// The type of a non-regular file from its `st_mode`: `inode/directory`, `inode/fifo`,
    /// `inode/chardevice`, `inode/blockdevice`, `inode/socket`, `inode/symlink`; nil for a
    /// regular file.
    public static func inodeType(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return ContentTypeName.directory
        case S_IFIFO: return ContentTypeName.fifo
        case S_IFCHR: return ContentTypeName.characterDevice
        case S_IFBLK: return ContentTypeName.blockDevice
        case S_IFSOCK: return ContentTypeName.socket
        case S_IFLNK: return ContentTypeName.symlink
        default: return ContentTypeName.octetStream
        }
    }

    /// The type of the file open on `fd`, whose name (for the glob patterns; a path's last
    /// component is used) is `name`. Content is read with `pread` from offset 0, so the
    /// descriptor's own offset is left alone. Throws when `fstat` fails, or when the content
    /// was needed and could not be read (an `O_PATH` descriptor: `EBADF`).
    public func contentType(forFileDescriptor descriptor: borrowing FileDescriptor, name: String?) throws(ContentTypeError) -> String {
        let st: stat
        do { st = try descriptor.status() } catch { throw ContentTypeError(code: error.code, operation: "fstat") }
        return try contentType(status: st, name: name.map { Array($0.utf8) }, descriptor: descriptor.rawValue)
    }

    /// ``contentType(forFileDescriptor:name:)`` as `gio info` answers for a file it may not read: a
    /// regular file whose content cannot be read (an `O_PATH` or write-only descriptor) gets the
    /// type of its name alone, `application/octet-stream` when the name says nothing.
    public func contentTypeAsGio(forFileDescriptor descriptor: borrowing FileDescriptor, name: String?) throws(ContentTypeError) -> String {
        do {
            return try contentType(forFileDescriptor: descriptor, name: name)
        } catch where error.operation == "read" && (error.code == EBADF || error.code == EACCES) {
            return snapshot.guess(name: name.map { Array($0.utf8) }, data: nil).type
        }
    }

    /// The type of the file at `path`, as `gio info` gives it: symbolic links are followed (a
    /// dangling one is `inode/symlink`). Nil when the path does not exist or cannot be
    /// examined. The file is opened only when its content is needed, non-blocking. For tools
    /// and tests: the service detects types from the descriptor a caller hands over.
    public func contentType(ofFileAt path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        if st.st_mode & S_IFMT == S_IFLNK, stat(path, &st) != 0 { return ContentTypeName.symlink }
        let name = Array(FileSystem.basename(path).utf8)
        if let early = ContentTypeDatabase.typeWithoutContent(st) { return early }
        let byName = snapshot.guess(name: name, data: nil)
        if !byName.isUncertain { return byName.type }
        guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY),
              let opened = try? fd.status(), opened.st_mode & S_IFMT == S_IFREG else { return byName.type }
        return (try? contentType(status: opened, name: name, descriptor: fd.rawValue)) ?? byName.type
    }

    /// `inode/*` or, for an empty regular file, `text/plain`: the answers that need no content.
    static func typeWithoutContent(_ st: stat) -> String? {
        if let inode = inodeType(mode: st.st_mode) { return inode }
        return st.st_size == 0 ? ContentTypeName.plainText : nil
    }

    private func contentType(status st: stat, name: [UInt8]?, descriptor fd: Int32) throws(ContentTypeError) -> String {
        if let early = ContentTypeDatabase.typeWithoutContent(st) { return early }
        let mime = snapshot
        let byName = mime.guess(name: name, data: nil)
        if !byName.isUncertain { return byName.type }
        let extent = mime.magicExtent
        let length = extent > 0 ? min(extent, sniffLimit) : sniffLimit
        var buffer = [UInt8](repeating: 0, count: length)
        let count = try ContentTypeDatabase.readStart(of: fd, into: &buffer)
        return buffer.withUnsafeBufferPointer { mime.guess(name: name, data: UnsafeBufferPointer(rebasing: $0[..<count])).type }
    }

    /// Fills `buffer` from offset 0 of `fd` (fewer bytes at the end of the file).
    private static func readStart(of fd: Int32, into buffer: inout [UInt8]) throws(ContentTypeError) -> Int {
        var total = 0
        while total < buffer.count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + total, $0.count - total, off_t(total)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ContentTypeError(code: errno, operation: "read")
            }
            if n == 0 { break }
            total += n
        }
        return total
    }
}
