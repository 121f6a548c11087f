import Foundation
import Testing
import DBusTestSupport

/// "Share…" in the file managers (desktop/filemanagers, installed by `make install`): each action,
/// run as its file manager runs it (Clients/FileManager/run_action.py), runs `schemebridge share`
/// with exactly the selected files — names with spaces, a line break, a leading "-", non-ASCII.
/// `schemebridge` is a stand-in that records its argv and folder (the CLI itself has its own tests).
@Suite struct FileManagerActionTests {
    /// A folder with the selected files, the actions as `make install` writes them (`@bindir@`
    /// replaced by the stand-in's folder) and the stand-in CLI.
    struct Setup {
        let root: URL, files: URL, bin: URL, record: URL
        let selected = ["a photo.png", "line\nbreak.txt", "-rf.txt", "ünïcödé.txt"]

        init() throws {
            root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-fm-\(UUID().uuidString.prefix(8))")
            files = root.appendingPathComponent("files")
            bin = root.appendingPathComponent("bin")
            record = root.appendingPathComponent("argv")
            for d in [files, bin] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
            for name in selected { try Data(name.utf8).write(to: files.appendingPathComponent(name)) }
            let cli = bin.appendingPathComponent("schemebridge")
            try "#!/bin/sh\nprintf '%s\\0' \"$PWD\" \"$@\" > '\(record.path)'\n".write(to: cli, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli.path)
            for name in ["nautilus-share", "io.github.schemebridge.share.desktop", "thunar-share-action.xml"] {
                let text = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/filemanagers/\(name)"), encoding: .utf8)
                let installed = root.appendingPathComponent(name)
                try text.replacingOccurrences(of: "@bindir@", with: bin.path).write(to: installed, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: installed.path)
            }
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        var paths: [String] { selected.map { files.appendingPathComponent($0).path } }

        /// Runs the action through the file manager's emulation; returns the CLI's argv after
        /// `share`, each made absolute against the folder it ran in.
        func run(_ mode: String, _ target: String, _ arguments: [String]) async throws -> [String] {
            let run = try await Tools.run(Clients.command("FileManager/run_action", [mode, root.appendingPathComponent(target).path] + arguments),
                                          timeout: Tools.eventCeiling)
            #expect(run.status == 0, "\(mode): \(run.stderr)")
            let fields = try Data(contentsOf: record).split(separator: 0, omittingEmptySubsequences: false).dropLast()
                .map { String(decoding: $0, as: UTF8.self) }
            let cwd = try #require(fields.first)
            #expect(fields.dropFirst().first == "share", "\(mode) ran \(fields)")
            return fields.dropFirst(2).map { $0.hasPrefix("/") ? $0 : URL(fileURLWithPath: cwd).appendingPathComponent($0).standardized.path }
        }
    }

    /// Nautilus passes names relative to the folder it shows as arguments: all of them arrive,
    /// "-rf.txt" as "./-rf.txt" (a file, never an option).
    @Test func nautilusScriptSharesTheSelectedFiles() async throws {
        let s = try Setup()
        defer { s.remove() }
        #expect(try await s.run("nautilus", "nautilus-share", [s.files.path] + s.selected) == s.paths)
        let argv = try Data(contentsOf: s.record).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(argv.contains("./-rf.txt") && !argv.contains("-rf.txt"))
    }

    /// With no arguments the script reads NAUTILUS_SCRIPT_SELECTED_FILE_PATHS, one path a line.
    @Test func nautilusScriptReadsTheSelectedPathsVariable() async throws {
        let s = try Setup()
        defer { s.remove() }
        let plain = s.paths.filter { !$0.contains("\n") }
        #expect(try await s.run("nautilus-env", "nautilus-share", plain) == plain)
    }

    @Test func thunarActionSharesTheSelectedFiles() async throws {
        let s = try Setup()
        defer { s.remove() }
        #expect(try await s.run("thunar", "thunar-share-action.xml", s.paths) == s.paths)
    }

    @Test func dolphinServiceMenuIsValidAndSharesTheSelectedFiles() async throws {
        let s = try Setup()
        defer { s.remove() }
        let validate = try await Tools.run([try Tools.path(of: "desktop-file-validate"),
                                            Built.packageRoot.appendingPathComponent("desktop/filemanagers/io.github.schemebridge.share.desktop").path])
        #expect(validate.status == 0 && validate.stdout.isEmpty, "\(validate.stdout)\(validate.stderr)")
        #expect(try await s.run("dolphin", "io.github.schemebridge.share.desktop", s.paths) == s.paths)
    }

    /// thunar-add-share-action adds the action to the user's uca.xml and keeps every byte of the
    /// user's own actions; a second run changes nothing; without a uca.xml it makes one.
    @Test func thunarMergeKeepsTheUsersActions() async throws {
        let s = try Setup()
        defer { s.remove() }
        let config = s.root.appendingPathComponent("config")
        let uca = config.appendingPathComponent("Thunar/uca.xml")
        try FileManager.default.createDirectory(at: uca.deletingLastPathComponent(), withIntermediateDirectories: true)
        let mine = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<actions>\n<action>\n\t<icon>utilities-terminal</icon>\n\t<name>Open Terminal Here</name>\n"
            + "\t<unique-id>1-1</unique-id>\n\t<command>exo-open --working-directory %f --launch TerminalEmulator</command>\n"
            + "\t<patterns>*</patterns>\n\t<directories/>\n</action>\n</actions>\n"
        try mine.write(to: uca, atomically: true, encoding: .utf8)
        let script = Built.packageRoot.appendingPathComponent("desktop/filemanagers/thunar-add-share-action").path
        let snippet = s.root.appendingPathComponent("thunar-share-action.xml").path
        let env = ["XDG_CONFIG_HOME": config.path]
        #expect(try await Tools.run(["/bin/sh", script, snippet], environment: env).status == 0)
        let merged = try String(contentsOf: uca, encoding: .utf8)
        let theirs = try String(contentsOf: URL(fileURLWithPath: snippet), encoding: .utf8)
        #expect(merged == mine.replacingOccurrences(of: "</action>\n</actions>\n", with: "</action>\n" + theirs + "</actions>\n"))
        #expect(try String(contentsOf: URL(fileURLWithPath: uca.path + ".orig-schemebridge"), encoding: .utf8) == mine)
        let parse = try await Tools.run(Clients.command("FileManager/uca", ["ids", uca.path]))
        #expect(parse.stdout == "1-1 io.github.schemebridge.share\n")
        #expect(try await Tools.run(["/bin/sh", script, snippet], environment: env).status == 0)
        #expect(try String(contentsOf: uca, encoding: .utf8) == merged, "a second run changed the file")
        try FileManager.default.removeItem(at: config)
        #expect(try await Tools.run(["/bin/sh", script, snippet], environment: env).status == 0)
        let fresh = try await Tools.run(Clients.command("FileManager/uca", ["command", uca.path]))
        #expect(fresh.stdout == "\(s.bin.path)/schemebridge share %F\n")
    }
}
