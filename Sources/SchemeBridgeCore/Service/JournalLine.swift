import Glibc
import LinuxSystem

/// The service's log lines on standard error, with the journal's priorities when systemd
/// connected standard error to the journal: each line then starts with `<N>` (sd-daemon(3):
/// 2 critical … 7 debug), which journald takes as the entry's priority (`journalctl -p warning`
/// shows warnings and worse). systemd says so through `JOURNAL_STREAM=DEVICE:INODE`, which must
/// name the very file standard error is (a child started from the service's shell inherits the
/// variable, not the stream). Anywhere else the lines are `TIME LEVEL label: message`, like
/// swift-log's `StreamLogHandler`'s (the journal keeps its own time).
public enum JournalLine {
    /// Whether standard error is the journal stream `JOURNAL_STREAM` (`value`) names.
    public static func standardErrorIsJournal(_ value: String?) -> Bool {
        guard let value, let colon = value.firstIndex(of: ":"),
              let device = UInt64(value[..<colon]), let inode = UInt64(value[value.index(after: colon)...]) else { return false }
        guard let st = try? FileDescriptor.lending(STDERR_FILENO, { d throws(Errno) in try d.status() }) else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    /// The sd-daemon priority of a swift-log level, by its name (`trace` … `critical`).
    public static func priority(_ level: String) -> Int {
        switch level {
        case "trace", "debug": 7
        case "info": 6
        case "notice": 5
        case "warning": 4
        case "error": 3
        default: 2
        }
    }

    /// The line for `message` (without the newline): `<N>label: message meta` for the journal
    /// (a message's own line breaks joined, one entry a line), else `TIME level label: message meta`.
    /// `metadata` is printed as given, sorted by key.
    public static func line(journal: Bool, level: String, label: String, message: String, metadata: [(key: String, value: String)]) -> String {
        let meta = metadata.isEmpty ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = journal ? message.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") : message
        return journal ? "<\(priority(level))>\(label): \(text)\(meta)" : "\(timestamp()) \(level) \(label): \(text)\(meta)"
    }

    /// The local time now, e.g. `2026-11-27T03:41:07+0000`.
    public static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
