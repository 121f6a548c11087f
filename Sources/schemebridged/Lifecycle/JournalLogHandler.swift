import Glibc
import Logging

/// Log lines for standard error, with the journal's priorities when systemd connected standard
/// error to the journal: each line then starts with `<N>` (sd-daemon(3): 2 critical … 7 debug),
/// which journald takes as the entry's priority (`journalctl -p warning` shows warnings and
/// worse). systemd says so through `JOURNAL_STREAM=DEVICE:INODE`, which must name the very file
/// standard error is (a child started from the service's shell inherits the variable, not the
/// stream). Anywhere else the lines are `TIME LEVEL label: message`, like `StreamLogHandler`'s
/// (the journal keeps its own time).
///
/// Metadata is printed as given: nothing logs the environment, and no level (debug included)
/// adds it.
struct JournalLogHandler: LogHandler {
    let label: String
    let journal: Bool
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether standard error is the journal stream `JOURNAL_STREAM` names.
    static func standardErrorIsJournal(_ value: String?) -> Bool {
        guard let value, let colon = value.firstIndex(of: ":"),
              let device = UInt64(value[..<colon]), let inode = UInt64(value[value.index(after: colon)...]) else { return false }
        var st = stat()
        return fstat(2, &st) == 0 && UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    /// The sd-daemon priority of `level`.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The line logged for `message` at `level` (without the newline).
    func line(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?) -> String {
        var all = metadata
        if let extra { all.merge(extra) { $1 } }
        let meta = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        // One journal entry a line: a message's own line breaks would start entries at level 6.
        let text = journal ? "\(message)".split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") : "\(message)"
        return journal ? "<\(Self.priority(level))>\(label): \(text)\(meta)" : "\(Self.timestamp()) \(level) \(label): \(text)\(meta)"
    }

    /// The local time now, e.g. `2026-11-27T03:41:07+0000`.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func log(event: LogEvent) {
        Daemon.writeAll(2, line(level: event.level, message: event.message, metadata: event.metadata) + "\n")
    }
}
