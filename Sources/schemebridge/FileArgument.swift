import DBus
import Glibc

/// File names as the user gave them: bytes, not text. Swift decodes `argv` lossily (a byte that is
/// not UTF-8 becomes U+FFFD), so a file called `caf\xE9.txt` in Latin-1 would not be found; the
/// bytes are taken from `argv` itself.
enum FileArgument {
    /// `O_PATH` (Glibc's module does not export it): a descriptor that names a file without
    /// opening it for reading — enough for `fstat`, never blocking, no side effect on a device.
    static let pathOnly: Int32 = 0o10000000

    /// The bytes of the command-line argument that decoded to `argument` (its UTF-8 when no
    /// argument needed repair).
    static func bytes(of argument: String) -> [UInt8] {
        guard argument.unicodeScalars.contains("\u{FFFD}") else { return Array(argument.utf8) }
        for i in 0..<Int(CommandLine.argc) {
            guard let p = CommandLine.unsafeArgv[i] else { continue }
            let raw = Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
            if String(decoding: raw, as: UTF8.self) == argument { return raw }
        }
        return Array(argument.utf8)
    }

    /// `open(2)` of a path given as bytes.
    static func open(_ path: [UInt8], _ flags: Int32) -> Int32 {
        (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, flags) }
        }
    }

    /// The last component of `path`, as text for the service's glob patterns (D-Bus strings are
    /// UTF-8: a byte that is not becomes U+FFFD, which leaves a suffix like `.txt` matching).
    static func name(_ path: [UInt8]) -> String {
        var end = path.endIndex
        while end > path.startIndex, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let start = path[..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? path.startIndex
        return String(decoding: path[start..<end], as: UTF8.self)
    }

    /// A descriptor to ask the type of `path` with, as `gio info` examines a file: a regular file
    /// opened for reading (content sniffing); anything else — a folder, a socket, a device, a FIFO,
    /// a file this user may not read — as `O_PATH`, so the service answers from its `fstat` (and,
    /// for an unreadable file, its name), never opening a device; a dangling link or a link loop is
    /// the link itself (`inode/symlink`, as gio). A path that does not exist is exit 2.
    static func descriptorForType(_ path: [UInt8], shown: String) -> Result<UnixFD, Reported> {
        guard !path.isEmpty else {
            Terminal.error("'\(shown)': only local files can be typed (file:// URIs of another host are not)")
            return .failure(Reported(status: .notFound))
        }
        var fd = open(path, O_CLOEXEC | FileArgument.pathOnly)
        var st = stat()
        if fd >= 0, fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
            let readable = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
            if readable >= 0 {
                close(fd)
                fd = readable
            }
        } else if fd < 0, errno == ENOENT || errno == ELOOP {
            // A dangling link or a loop: the link itself, when there is one.
            fd = open(path, O_CLOEXEC | O_NOFOLLOW | FileArgument.pathOnly)
        }
        guard fd >= 0 else {
            let e = errno
            Terminal.error("cannot examine '\(shown)': \(String(cString: strerror(e)))")
            return .failure(Reported(status: e == ENOENT || e == ENOTDIR ? .notFound : .failed))
        }
        return .success(UnixFD(owning: fd))
    }
}
