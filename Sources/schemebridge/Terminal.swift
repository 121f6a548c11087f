import Glibc

/// Output helpers: stdout for data, stderr for messages, flushed per line so that
/// `schemebridge monitor | other-program` sees each signal as it comes.
enum Terminal {
    static func out(_ line: String) {
        JSONFailure.printed = true
        write(fd: 1, line + "\n")
    }

    static func error(_ message: String) {
        JSONFailure.messages.append(message)
        write(fd: 2, "schemebridge: " + message + "\n")
    }

    /// Writes all of `text` to `fd` (retrying short writes; a closed pipe ends the output).
    static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    /// An environment variable, or nil when unset or empty.
    static func environment(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        let s = String(cString: v)
        return s.isEmpty ? nil : s
    }

    /// Whether `path` names an existing file system object.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
