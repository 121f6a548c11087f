/// A problem found while indexing (an entry skipped, a list ignored, a directory unreadable).
/// Library code never prints these; ``Registry`` hands them to the warning handler it was given
/// and keeps the most recent ones in ``Registry/recentWarnings``.
public struct RegistryWarning: Sendable, Equatable, CustomStringConvertible {
    /// The file or directory concerned.
    public var path: String
    /// The 1-based line, or 0.
    public var line: Int
    /// What is wrong and what was done about it.
    public var message: String

    public init(path: String, line: Int = 0, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    init(_ e: KeyFileError) { self.init(path: e.path, line: e.line, message: e.message) }

    public var description: String {
        line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}
