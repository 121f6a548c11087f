import Glibc
import LinuxSystem

/// What the sheet shows of a shared item (``ShareItemPreview``): a file's name, type and size and
/// a path the dialog may read for its thumbnail — the caller's own descriptor, held by the share
/// while the sheet is up, under `/proc/<this service>/fd/` (the dialog runs as the same user); a
/// URL; a text's first bytes. Never the data of anything else.
extension ShareItemPreview {
    /// A file item open as `fd`.
    public static func file(descriptor fd: Int32, name: String, type: String) -> ShareItemPreview {
        let size = (try? FileDescriptor.lending(fd) { d throws(Errno) in try d.status() }).map { Int($0.st_size) }
        return ShareItemPreview(kind: .file, name: name, type: type, size: size, path: "/proc/\(getpid())/fd/\(fd)")
    }

    /// A URL item.
    public static func url(_ url: String, type: String) -> ShareItemPreview {
        ShareItemPreview(kind: .url, type: type, url: url)
    }

    /// A data item: its `bytes`, or a descriptor to read them from (only a regular file's size is told).
    public static func data(bytes: [UInt8]?, descriptor: Int32?, name: String, type: String) -> ShareItemPreview {
        let isText = type.hasPrefix("text/")
        if isText, let bytes {
            return ShareItemPreview(kind: .text, name: name.isEmpty ? nil : name, type: type, size: bytes.count, text: textStart(bytes))
        }
        var size: Int?
        if let bytes {
            size = bytes.count
        } else if let descriptor {
            if let st = try? FileDescriptor.lending(descriptor, { d throws(Errno) in try d.status() }), st.st_mode & S_IFMT == S_IFREG { size = Int(st.st_size) }
        }
        return ShareItemPreview(kind: isText ? .text : .data, name: name.isEmpty ? nil : name, type: type, size: size)
    }
}
