import Synchronization

/// `Exec` values parsed before, by their text: a handler's command line is tokenized and its
/// field codes read once, not at every launch (``DesktopEntry/execCommand``). What is kept for a
/// text is exactly what ``ExecCommand/init(_:)`` makes of it, so a launch from the cache runs the
/// argv a fresh parse gives; a changed `Exec` is another text, parsed anew. The URL is put in at
/// each launch (``ExecCommand/argumentByteVectors(for:context:)``), never re-split.
///
/// Keyed by text rather than kept in each entry: 10,000 installed entries keep nothing more, and
/// the few launched are found by one hash of their `Exec`. At most ``capacity`` texts (emptied
/// when full, as ``VerifiedFiles`` is).
enum ParsedExecCommands {
    static let capacity = 64
    private static let parsed = Mutex<[String: ExecCommand]>([:])

    /// `exec` parsed (from the cache when it was parsed before); nil when it is not a valid command line.
    static func command(_ exec: String) -> ExecCommand? {
        if let known = parsed.withLock({ $0[exec] }) { return known }
        guard let command = try? ExecCommand(exec) else { return nil }
        parsed.withLock { known in
            if known.count >= capacity { known.removeAll() }
            known[exec] = command
        }
        return command
    }

    /// How many texts are kept (for tests).
    static var count: Int { parsed.withLock { $0.count } }
}
