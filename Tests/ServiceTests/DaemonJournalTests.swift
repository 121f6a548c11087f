import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// schemebridged's log under systemd: when `JOURNAL_STREAM` names its standard error, each line
/// carries the journal's priority (`<4>` a warning, `<6>` information), as journald reads it;
/// otherwise plain lines.
@Suite struct DaemonJournalTests {
    /// Runs the daemon with standard error into a file (made first: `JOURNAL_STREAM` names it or
    /// not, as `journal` says) and a config with a value it warns about; its log after SIGTERM.
    func log(journal: Bool) async throws -> String {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let config = bus.directory.appendingPathComponent("config/schemebridge")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[Privacy]\nBroadcastURLs=loud\n".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let log = bus.directory.appendingPathComponent("daemon.log")
        #expect(FileManager.default.createFile(atPath: log.path, contents: Data()))
        var st = stat()
        #expect(stat(log.path, &st) == 0)
        // systemd's value for the file itself, or for another file (inherited, not the stream).
        let stream = journal ? "\(st.st_dev):\(st.st_ino)" : "\(st.st_dev):\(st.st_ino + 1)"
        let daemon = try Tools.spawn([try Built.executable("schemebridged"), "--address", bus.address],
                                     environment: bus.userEnvironment.merging(["JOURNAL_STREAM": stream, "XDG_CONFIG_HOME": bus.directory.appendingPathComponent("config").path]) { $1 },
                                     stderr: log)
        let client = try await Connection.connect(address: bus.address)
        defer { client.close() }
        #expect(await Tools.eventually { (try? String(contentsOf: log, encoding: .utf8))?.contains("serving ") == true })
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        return try String(contentsOf: log, encoding: .utf8)
    }

    @Test func linesCarryTheJournalsPrioritiesWhenStandardErrorIsTheJournal() async throws {
        let text = try await log(journal: true)
        let lines = text.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.first == "<" }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("<4>") && $0.contains("BroadcastURLs=loud") }, "the config warning is a warning: \(text)")
        #expect(lines.contains { $0.hasPrefix("<6>schemebridged: serving ") }, "\(text)")
        #expect(!text.contains("DBUS_SESSION_BUS_ADDRESS=") && !text.contains("XDG_CONFIG_HOME="), "the environment is never logged: \(text)")
    }

    @Test func plainLinesWhenTheJournalStreamIsAnotherFile() async throws {
        let text = try await log(journal: false)
        let lines = text.split(separator: "\n")
        #expect(!lines.isEmpty && !lines.contains { $0.first == "<" }, "\(text)")
        #expect(lines.contains { $0.contains(" warning ") && $0.contains("BroadcastURLs=loud") }, "\(text)")
    }
}
