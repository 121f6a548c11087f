import Glibc

/// "Save to…": the shared item's bytes written to the file the user chose in the save dialog.
public enum SavedItem {
    /// Writes everything `source` holds (from where it stands) to `path`: created or truncated,
    /// mode 0644, a symlink at `path` not followed. Blocking: run it on a descriptor thread.
    public static func write(from source: Int32, to path: String) throws(ServiceFailure) {
        let out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard out >= 0 else { throw ServiceFailure(.failed, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(out) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ServiceFailure(.failed, "cannot read the shared item: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { Glibc.write(out, $0.baseAddress! + done, n - done) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw ServiceFailure(.failed, "cannot write \(path): \(String(cString: strerror(errno)))") }
                done += w
            }
        }
    }
}
