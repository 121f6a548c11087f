import Logging
import SchemeBridgeCore

/// swift-log's lines for standard error, written as the core's ``JournalLine`` says (the
/// journal's priorities when standard error is the journal stream). Metadata is printed as
/// given: nothing logs the environment, and no level (debug included) adds it.
struct JournalLogHandler: LogHandler {
    let label: String
    let journal: Bool
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The line logged for `message` at `level` (without the newline).
    func line(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?) -> String {
        var all = metadata
        if let extra { all.merge(extra) { $1 } }
        return JournalLine.line(journal: journal, level: level.rawValue, label: label, message: "\(message)",
                                metadata: all.map { (key: $0.key, value: "\($0.value)") })
    }

    func log(event: LogEvent) {
        Daemon.writeAll(2, line(level: event.level, message: event.message, metadata: event.metadata) + "\n")
    }
}

extension Logger {
    /// A line the core hands over at `level`.
    func log(_ level: ServiceLogLevel, _ message: String) {
        switch level {
        case .info: info("\(message)")
        case .notice: notice("\(message)")
        case .warning: warning("\(message)")
        }
    }
}
