import Glibc

/// Output helpers: stdout for data, stderr for messages, flushed per line so that
/// `schemebridge monitor | other-program` sees each signal as it comes.
public enum Terminal {
    /// Whether anything was written with ``out(_:)`` (a failure under `--json` that printed no
    /// answer prints an error object). Set and read on the main thread only.
    nonisolated(unsafe) public static var wroteOutput = false
    /// The messages ``error(_:dbusError:)`` wrote, in order (for that error object).
    nonisolated(unsafe) public static var errors: [String] = []
    /// The D-Bus error each of ``errors`` reported, if any (the `dbus_error` of that object).
    nonisolated(unsafe) public static var errorNames: [String?] = []

    /// The D-Bus error name of the last message since the `mark`-th that reported one.
    public static func lastDBusError(since mark: Int = 0) -> String? {
        errorNames.dropFirst(mark).last { $0 != nil } ?? nil
    }

    /// Writes `line` and a newline to standard output.
    public static func out(_ line: String) {
        wroteOutput = true
        write(fd: 1, line + "\n")
    }

    /// Writes "schemebridge: `message`" and a newline to standard error; `dbusError` is the
    /// D-Bus error it reports, if any.
    public static func error(_ message: String, dbusError: String? = nil) {
        errors.append(message)
        errorNames.append(dbusError)
        write(fd: 2, "schemebridge: " + message + "\n")
    }

    /// Writes all of `text` to `fd` (retrying short writes; a closed pipe ends the output).
    public static func write(fd: Int32, _ text: String) {
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
    public static func environment(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        let s = String(cString: v)
        return s.isEmpty ? nil : s
    }

    /// Whether `path` names an existing file system object.
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
