import DBus
import Glibc
import SchemeBridgeContract

/// Files on `schemebridge open`: a path (absolute or relative) or a `file://` URI is a document.
/// The command opens it itself and hands the service the descriptor — the proof that the caller
/// may read it; the service never opens a path it is told.
enum OpenDocument {
    /// The local path `argument` names, as bytes (a file name need not be UTF-8), or nil when it
    /// is a URL with another scheme. As `xdg-open`: `file:` URIs and anything without a scheme are
    /// files.
    static func path(_ argument: String) -> [UInt8]? {
        if argument.hasPrefix("file:") { return fileURIPath(FileArgument.bytes(of: argument)) }
        return hasScheme(argument) ? nil : FileArgument.bytes(of: argument)
    }

    /// Whether `argument` starts with `scheme:` (a letter, then letters, digits, `+ . -`).
    static func hasScheme(_ argument: String) -> Bool { URLOpening.hasScheme(argument) }

    /// `/a b` of `file:///a%20b` or `file://localhost/a%20b` (escapes decoded to bytes, so
    /// `%E9` is the byte 0xE9, as GLib's `g_filename_from_uri`); empty for a URI of another host.
    static func fileURIPath(_ uri: [UInt8]) -> [UInt8] {
        var rest = uri.dropFirst("file:".count)
        if rest.starts(with: "//".utf8) {
            rest = rest.dropFirst(2)
            let host = rest.prefix { $0 != UInt8(ascii: "/") }
            guard host.isEmpty || host.elementsEqual("localhost".utf8) else { return [] }
            rest = rest.dropFirst(host.count)
        }
        if let cut = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { rest = rest[..<cut] }
        var bytes: [UInt8] = []
        while let b = rest.popFirst() {
            if b == UInt8(ascii: "%"), rest.count >= 2, let v = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return bytes
    }

    /// Opens `path` for reading — and writing when `writable` and the user may write it, so that
    /// an app opening it in place can save it: the descriptor, or the exit status already
    /// reported (2 for a file that does not exist, as `xdg-open`; 3 for a folder; 4 when it
    /// cannot be read).
    static func descriptor(_ path: [UInt8], shown: String, writable: Bool = false) -> Result<UnixFD, Reported> {
        guard !path.isEmpty else {
            Terminal.error("'\(shown)': only local files can be opened (file:// URIs of another host are not)")
            return .failure(Reported(status: .notFound))
        }
        let flags = O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        var fd = writable ? FileArgument.open(path, O_RDWR | flags) : -1
        if fd < 0 { fd = FileArgument.open(path, O_RDONLY | flags) }
        guard fd >= 0 else {
            let e = errno
            Terminal.error("cannot open '\(shown)': \(String(cString: strerror(e)))")
            return .failure(Reported(status: e == ENOENT || e == ENOTDIR ? .notFound : .failed))
        }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            Terminal.error("'\(shown)' is a folder; SchemeBridge opens files and URLs (open folders with your file manager)")
            return .failure(Reported(status: .noHandler))
        }
        return .success(UnixFD(owning: fd))
    }

    /// Opens the document at `path` through the service; its status.
    static func open(_ path: [UInt8], argument: String, options: OpenOptions, json: Bool, service: SchemeBridgeBlockingClient) -> ExitStatus {
        let fd: UnixFD
        let mark = Terminal.errors.count
        switch descriptor(path, shown: Open.shown(argument), writable: options.mode == .inPlace) {
        case .success(let d): fd = d
        case .failure(let reported):
            if json { JSON.out(Open.notOpened(argument, key: "file", reported.status, since: mark)) }
            return reported.status
        }
        do {
            let results = try service.perform(.openFile(fd, options: options)).dictionary
            if json { JSON.out([("file", .string(argument)), ("opened", .bool(true))] + JSON.members(results)) }
            return .success
        } catch {
            return Open.failed(argument, key: "file", error, json: json)
        }
    }
}
