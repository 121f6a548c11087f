import Foundation
import Testing
import DBusTestSupport

/// Issue 27, item 8: `schemebridge` serves a plain `open URL-or-FILE...` itself, with the D-Bus
/// layer alone, and runs the full command line (`schemebridge-cli`) for anything else. Whichever
/// program answers, a user sees the same: the same exit status and the same words on stderr.
@Suite struct LeanEntryTests {
    /// `program open arguments…` with `environment` over the fixture's bus.
    static func open(_ program: String, _ f: ServiceFixture, _ arguments: [String], _ environment: [String: String] = [:]) async throws -> ProcessResult {
        var env = ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""]
        for (k, v) in environment { env[k] = v }
        return try await Tools.run([try Built.executable(program), "open"] + arguments, environment: env)
    }

    @Test func thePlainOpenAnswersAsTheFullCommandLine() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        try f.entry("broken.desktop", "Name=Broken\nExec=\(f.bin.path)/missing-program %u\nMimeType=x-scheme-handler/broken;")
        let bare = try PrivateBus()
        defer { bare.stop() }
        let cases: [(String, [String], [String: String], Int32)] = [
            ("opened", ["good://1"], [:], 0),
            ("several, the first failure's status", ["good://2", "nothing://x", "broken://y"], [:], 3),
            ("no handler", ["nothing://x"], [:], 3),
            ("launch failed", ["broken://y"], [:], 4),
            ("malformed", ["good://a\u{1}b"], [:], 1),
            ("no session bus", ["good://x"], ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_STARTER_ADDRESS": "", "XDG_RUNTIME_DIR": f.root.path], 3),
            ("a dead bus", ["good://x"], ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(f.root.path)/no-such-socket"], 3),
            ("no service on the bus", ["good://x"], ["DBUS_SESSION_BUS_ADDRESS": bare.address], 3),
        ]
        for (what, arguments, environment, status) in cases {
            let lean = try await Self.open("schemebridge", f, arguments, environment)
            let full = try await Self.open("schemebridge-cli", f, arguments, environment)
            #expect(lean.status == status && full.status == status, "\(what): \(lean.status) \(lean.stderr) / \(full.status) \(full.stderr)")
            #expect(lean.stderr == full.stderr && lean.stdout == full.stdout, "\(what): \(lean.stderr) / \(full.stderr)")
            #expect(status == 0 || lean.stderr.hasPrefix("schemebridge: "), "\(what): \(lean.stderr)")
        }
        // The handler got its URLs (it records the last one it was started with).
        #expect(await f.recordedArgv("good")?.first?.hasPrefix("good://") == true)
    }

    /// Files (paths and `file://` URIs of this host) are opened by the lean entry point too, in
    /// place as the full command line opens them: the same handler's argv, the same statuses and
    /// words for a file that is missing, a folder, a file no app opens, and — left to the full
    /// command line — a URI of another host or with an escape that is no byte.
    @Test func filesAnswerAsTheFullCommandLine() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Editor.desktop", "Name=Editor\nExec=\(try f.recorder("editor")) %f\nMimeType=text/plain;")
        let file = f.root.appendingPathComponent("draft notes.txt")
        try "draft\n".write(to: file, atomically: true, encoding: .utf8)
        let picture = f.root.appendingPathComponent("photo.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: picture)
        let uri = "file://" + file.path.replacingOccurrences(of: " ", with: "%20")
        let missing = f.root.appendingPathComponent("no such file.txt").path
        let opened: [(String, [String])] = [("a path", [file.path]), ("a file URI", [uri + "?query#part"]),
                                            ("a localhost URI", [uri.replacingOccurrences(of: "file://", with: "file://localhost")])]
        for (what, arguments) in opened {
            for program in ["schemebridge", "schemebridge-cli"] {
                try? FileManager.default.removeItem(at: f.records.appendingPathComponent("editor.argv"))
                let run = try await Self.open(program, f, arguments)
                #expect(run.status == 0 && run.stderr.isEmpty, "\(what), \(program): \(run.status) \(run.stderr)")
                #expect(await f.recordedArgv("editor") == [file.path], "\(what), \(program): in place")
            }
        }
        let cases: [(String, [String], [String: String], Int32)] = [
            ("missing", [missing], [:], 2),
            ("a folder", [f.root.path], [:], 3),
            ("no app for its type", [picture.path], [:], 3),
            ("a URL, then a missing file, then a file", ["good://x", missing, file.path], [:], 3),
            ("another host", ["file://elsewhere/etc/hosts"], [:], 2),
            ("an escape that is no byte", ["file:///tmp/a%zz"], [:], 2),
            ("no session bus", [missing], ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_STARTER_ADDRESS": "", "XDG_RUNTIME_DIR": f.root.path], 3),
        ]
        for (what, arguments, environment, status) in cases {
            let lean = try await Self.open("schemebridge", f, arguments, environment)
            let full = try await Self.open("schemebridge-cli", f, arguments, environment)
            #expect(lean.status == status && full.status == status, "\(what): \(lean.status) \(lean.stderr) / \(full.status) \(full.stderr)")
            #expect(lean.stderr == full.stderr && lean.stdout == full.stdout, "\(what): \(lean.stderr) / \(full.stderr)")
        }
    }

    /// The lean entry point is C (Sources/schemebridge-lean): what it does on its own — the
    /// activation token handed on, a long URL shortened in a message character by character, an
    /// argument that is not UTF-8 left to the full command line — is what the full one does.
    @Test func tokensLongURLsAndBytesAsTheFullCommandLine() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        let argv = f.records.appendingPathComponent("good.argv").path
        for program in ["schemebridge", "schemebridge-cli"] {
            let token = "token-of-\(program)"
            try? FileManager.default.removeItem(atPath: argv)
            let run = try await Self.open(program, f, ["good://token"], ["XDG_ACTIVATION_TOKEN": token])
            #expect(run.status == 0, "\(program): \(run.stderr)")
            let env = f.recordedEnv("good")
            #expect(env.contains("token=\(token)\n"), "\(program): \(env)")
            try? FileManager.default.removeItem(atPath: argv)
            let startup = try await Self.open(program, f, ["good://startup"], ["DESKTOP_STARTUP_ID": "startup-\(program)"])
            let startupEnv = f.recordedEnv("good")
            #expect(startup.status == 0 && startupEnv.contains("startup-\(program)"), "\(program): \(startupEnv)")
        }
        let long = "nothing://" + String(repeating: "é", count: 150) + "\u{7F}" + String(repeating: "漢", count: 100)
        let lean = try await Self.open("schemebridge", f, [long, "good://after"])
        let full = try await Self.open("schemebridge-cli", f, [long, "good://after"])
        #expect(lean.status != 0 && lean.status == full.status && lean.stderr == full.stderr, "\(lean.status) \(lean.stderr) / \(full.status) \(full.stderr)")
        #expect(lean.stderr.contains("…'") && lean.stderr.contains("é?漢"), "\(lean.stderr)")
        // Bytes that are not UTF-8 (a shell passes them on): the lean entry point does not send
        // them (libdbus would abort); the full command line answers, the same for both.
        var outcomes: [ProcessResult] = []
        for program in ["schemebridge", "schemebridge-cli"] {
            outcomes.append(try await Tools.run(["/bin/sh", "-c", #"exec "$0" open "$(printf 'good://caf\351')""#, try Built.executable(program)],
                                                environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""]))
        }
        #expect(outcomes[0].status == outcomes[1].status && outcomes[0].stderr == outcomes[1].stderr,
                "\(outcomes[0].status) \(outcomes[0].stderr) / \(outcomes[1].status) \(outcomes[1].stderr)")
    }

    @Test func everythingElseRunsTheFullCommandLineWithTheSameArguments() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        // An option: the full command line's JSON, with the handler it chose.
        let json = try await Self.open("schemebridge", f, ["--json", "good://json"])
        #expect(json.status == 0 && json.stdout.hasPrefix("{") && json.stdout.contains("good://json") && json.stdout.contains("\"good.desktop\""),
                "\(json.status) \(json.stdout)\(json.stderr)")
        // Usage errors and --version come from the argument parser.
        let none = try await Tools.run([try Built.executable("schemebridge")])
        #expect(none.status == 1 && none.stderr.contains("usage: schemebridge"), "\(none.status) \(none.stderr)")
        let version = try await Tools.run([try Built.executable("schemebridge"), "--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("schemebridge "), "\(version.stdout)\(version.stderr)")
    }

    @Test func withoutTheFullCommandLineBesideItTheEntryPointSaysSo() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        let alone = f.root.appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        let copy = alone.appendingPathComponent("schemebridge").path
        try FileManager.default.copyItem(atPath: try Built.executable("schemebridge"), toPath: copy)
        let env = ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""]
        // The plain open, of a URL or a file, needs nothing else…
        let plain = try await Tools.run([copy, "open", "good://alone"], environment: env)
        #expect(plain.status == 0, "\(plain.stderr)")
        try f.entry("org.example.Editor.desktop", "Name=Editor\nExec=\(try f.recorder("editor")) %f\nMimeType=text/plain;")
        let file = f.root.appendingPathComponent("alone.txt")
        try "alone\n".write(to: file, atomically: true, encoding: .utf8)
        let document = try await Tools.run([copy, "open", file.path], environment: env)
        #expect(document.status == 0 && document.stderr.isEmpty, "\(document.stderr)")
        #expect(await f.recordedArgv("editor") == [file.path])
        // …anything else is a clear error, not a crash.
        let other = try await Tools.run([copy, "handlers", "good"], environment: env)
        #expect(other.status == 4 && other.stderr.contains("cannot run \(alone.path)/schemebridge-cli"), "\(other.status) \(other.stderr)")
    }
}
