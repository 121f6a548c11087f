import Glibc
import SchemeBridgeCore

/// What the sheet shows of a shared item (``ShareItemPreview``): a file's name, type and size and
/// a path the dialog may read for its thumbnail — the caller's own descriptor, held by the share
/// while the sheet is up, under `/proc/<this service>/fd/` (the dialog runs as the same user); a
/// URL; a text's first bytes. Never the data of anything else.
extension SharedItem {
    var preview: ShareItemPreview {
        switch payload {
        case .file(let fd):
            var st = stat()
            let size = fstat(fd.rawValue, &st) == 0 ? Int(st.st_size) : nil
            return ShareItemPreview(kind: .file, name: name, type: summary.type, size: size, path: "/proc/\(getpid())/fd/\(fd.rawValue)")
        case .url(let url):
            return ShareItemPreview(kind: .url, type: summary.type, url: url)
        case .data(let value, _):
            let isText = summary.type.hasPrefix("text/")
            if isText, case .bytes(let bytes) = value {
                return ShareItemPreview(kind: .text, name: name.isEmpty ? nil : name, type: summary.type, size: bytes.count, text: ShareItemPreview.textStart(bytes))
            }
            var size: Int?
            switch value {
            case .bytes(let bytes): size = bytes.count
            case .descriptor(let fd):
                var st = stat()
                if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG { size = Int(st.st_size) }
            }
            return ShareItemPreview(kind: isText ? .text : .data, name: name.isEmpty ? nil : name, type: summary.type, size: size)
        }
    }
}
