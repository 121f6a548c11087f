import Glibc

/// Milliseconds on the monotonic clock, the helper's only time base.
func monotonicMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Writes one line to stderr with a single write(2), so lines from several processes never interleave.
func writeStderr(_ line: String) {
    let text = line.hasSuffix("\n") ? line : line + "\n"
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
    bytes.removeAll()
}

/// The helper's stderr log: errors always, one line per event with `--verbose`.
struct Log {
    /// Whether event lines are printed.
    let verbose: Bool
    /// The monotonic time the helper started, for the `+N ms` stamps.
    let start: Int64

    /// Prints an event line (only with `--verbose`).
    func event(_ message: @autoclosure () -> String) {
        guard verbose else { return }
        writeStderr("schemebridge-splash: \(message()) (+\(monotonicMilliseconds() - start) ms)")
    }

    /// Prints an error line (always).
    func error(_ message: String) {
        writeStderr("schemebridge-splash: \(message)")
    }

    /// Milliseconds since the helper started.
    var elapsed: Int64 { monotonicMilliseconds() - start }
}
