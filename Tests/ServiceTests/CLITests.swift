import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `schemebridge`, the command-line client, driven as a user (or a browser) runs it: real
/// process, private bus, bus activation of the built daemon, handler scripts that record argv.
@Suite struct CLITests {
    static func cli(_ f: ServiceFixture, _ args: String..., environment: [String: String] = [:]) async throws -> ProcessResult {
        var env = ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""]
        for (k, v) in environment { env[k] = v }
        return try await Tools.run([try Built.executable("schemebridge")] + args, environment: env)
    }

    @Test func openHandsTheURLOverAsOneArgumentAndDoesNotWaitForTheApp() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The handler records its argv, then runs until the test lets it go (after `open` returned).
        let slow = try f.holdingRecorder("todo")
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(slow) --open %u\nMimeType=x-scheme-handler/todolist;")
        let marker = f.root.appendingPathComponent("pwned").path
        let url = "todolist:-add?task=\"milk & eggs\" 'x' $(touch \(marker)) `touch \(marker)`; touch \(marker) |cat"
        // Had `open` waited for the app, it would never return (the app waits for the test).
        let r = try await Self.cli(f, "open", url, environment: ["XDG_ACTIVATION_TOKEN": "tok-cli"])
        #expect(r.status == 0, "open waited for the app to exit, or failed: \(r.status) \(r.stderr)")
        #expect(r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
        #expect(!f.gate.isReleased("todo"))
        #expect(await f.recordedArgv("todo") == ["--open", url])
        #expect(f.recordedEnv("todo").contains("token=tok-cli\nstartup=tok-cli\n"), "\(f.recordedEnv("todo"))")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func exitStatusesAreXdgOpens() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        try f.entry("broken.desktop", "Name=Broken\nExec=\(f.bin.path)/missing-program %u\nMimeType=x-scheme-handler/broken;")

        let ok = try await Self.cli(f, "open", "good://1")
        #expect(ok.status == 0, "\(ok.stderr)")
        // 1: usage — no URL, an unknown subcommand, a malformed URL.
        let none = try await Self.cli(f, "open")
        #expect(none.status == 1 && none.stderr.contains("Missing expected argument"), "\(none.status) \(none.stderr)")
        let bare = try await Self.cli(f)
        #expect(bare.status == 1 && bare.stderr.contains("usage: schemebridge open URL") && bare.stdout.isEmpty, "no arguments is a usage error, as for xdg-open: \(bare.status) \(bare.stderr)")
        let unknown = try await Self.cli(f, "frobnicate")
        #expect(unknown.status == 1, "\(unknown.status) \(unknown.stderr)")
        let malformed = try await Self.cli(f, "open", "good://a\u{01}b")
        #expect(malformed.status == 1 && malformed.stderr.contains("control character"), "\(malformed.status) \(malformed.stderr)")
        // 2: not found — a file that does not exist, a handler that is not installed.
        let missingFile = try await Self.cli(f, "open", "/nonexistent/file.txt")
        #expect(missingFile.status == 2 && missingFile.stderr.contains("No such file"), "\(missingFile.status) \(missingFile.stderr)")
        // Without a scheme an argument is a file, as for xdg-open.
        let noScheme = try await Self.cli(f, "open", "no scheme here")
        #expect(noScheme.status == 2 && noScheme.stderr.contains("No such file"), "\(noScheme.status) \(noScheme.stderr)")
        let missingHandler = try await Self.cli(f, "open", "--handler", "zzz.desktop", "good://2")
        #expect(missingHandler.status == 2 && missingHandler.stderr.contains("zzz.desktop"), "\(missingHandler.status) \(missingHandler.stderr)")
        // 3: no handler (for a scheme, or for a file's type).
        let noHandler = try await Self.cli(f, "open", "nothing://x")
        #expect(noHandler.status == 3 && noHandler.stderr.contains("MimeType=x-scheme-handler/nothing"), "\(noHandler.status) \(noHandler.stderr)")
        let file = try await Self.cli(f, "open", "file:///etc/hostname")
        #expect(file.status == 3 && file.stderr.contains("text/plain"), "\(file.status) \(file.stderr)")
        // 4: the action failed.
        let failed = try await Self.cli(f, "open", "broken://x")
        #expect(failed.status == 4 && failed.stderr.contains("missing-program"), "\(failed.status) \(failed.stderr)")
        // Several URLs: all are tried; the status is the first failure's.
        let mixed = try await Self.cli(f, "open", "nothing://a", "good://3", "broken://b")
        #expect(mixed.status == 3, "\(mixed.status) \(mixed.stderr)")
        // good.argv already holds good://1: wait for good://3's record, never read the old one.
        #expect(await Tools.eventually { await f.recordedArgv("good") == ["good://3"] })
    }

    @Test func noSessionBusOrNoServiceIsStatusThreeWithAdvice() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let noBus = try await Self.cli(f, "open", "good://x", environment: ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_STARTER_ADDRESS": "", "XDG_RUNTIME_DIR": f.root.path])
        #expect(noBus.status == 3 && noBus.stderr.contains("no session bus"), "\(noBus.status) \(noBus.stderr)")
        let deadBus = try await Self.cli(f, "open", "--address", "unix:path=\(f.root.path)/no-such-socket", "good://x")
        #expect(deadBus.status == 3 && deadBus.stderr.contains("cannot connect"), "\(deadBus.status) \(deadBus.stderr)")
        // A bus without our activation file: the service is not installed there.
        let bare = try PrivateBus()
        defer { bare.stop() }
        let noService = try await Self.cli(f, "can-open", "good://x", environment: ["DBUS_SESSION_BUS_ADDRESS": bare.address])
        #expect(noService.status == 3 && noService.stderr.contains("not available") && noService.stderr.contains("make install"),
                "\(noService.status) \(noService.stderr)")
    }

    @Test func queriesPrintTextAndJSON() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=\(try f.recorder("a")) %u\nMimeType=x-scheme-handler/todolist;x-scheme-handler/notes;")
        try f.entry("b.desktop", "Name=B\nExec=\(try f.recorder("b")) %u\nMimeType=x-scheme-handler/todolist;")

        let yes = try await Self.cli(f, "can-open", "todolist://x")
        #expect(yes.status == 0 && yes.stdout == "yes\n", "\(yes.stdout)\(yes.stderr)")
        let no = try await Self.cli(f, "can-open", "--json", "nothing://x")
        #expect(no.status == 3 && no.stdout == "{\"url\":\"nothing://x\",\"can_open\":false,\"error\":{\"exit_status\":3,\"reason\":\"no_handler\","
                + "\"dbus_error\":null,\"message\":\"no application handles 'nothing://x'\"}}\n", "\(no.stdout)\(no.stderr)")
        let handlers = try await Self.cli(f, "handlers", "TodoList")
        #expect(handlers.stdout == "a.desktop\nb.desktop\n", "\(handlers.stdout)\(handlers.stderr)")
        let handlersJSON = try await Self.cli(f, "handlers", "--json", "todolist")
        #expect(handlersJSON.stdout == "{\"scheme\":\"todolist\",\"handlers\":[\"a.desktop\",\"b.desktop\"]}\n", "\(handlersJSON.stdout)")
        let none = try await Self.cli(f, "handlers", "nothing")
        #expect(none.status == 3 && none.stdout.isEmpty, "\(none.status) \(none.stdout)")
        let badScheme = try await Self.cli(f, "handlers", "1bad")
        #expect(badScheme.status == 1, "\(badScheme.status) \(badScheme.stderr)")

        let before = try await Self.cli(f, "default", "todolist")
        #expect(before.stdout == "a.desktop\n", "\(before.stdout)\(before.stderr)")
        let set = try await Self.cli(f, "default", "todolist", "b.desktop")
        #expect(set.status == 0, "\(set.stderr)")
        let after = try await Self.cli(f, "default", "--json", "todolist")
        #expect(after.stdout == "{\"scheme\":\"todolist\",\"default\":\"b.desktop\",\"overridden_by\":[]}\n", "\(after.stdout)")
        let mimeapps = try String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)
        #expect(mimeapps.contains("x-scheme-handler/todolist=b.desktop"), "\(mimeapps)")
        let setWrong = try await Self.cli(f, "default", "todolist", "nope.desktop")
        #expect(setWrong.status == 2 && setWrong.stderr.contains("nope.desktop"), "\(setWrong.status) \(setWrong.stderr)")

        let schemes = try await Self.cli(f, "schemes")
        #expect(schemes.stdout == "notes\ntodolist\n", "\(schemes.stdout)\(schemes.stderr)")
        let schemesJSON = try await Self.cli(f, "schemes", "--json")
        #expect(schemesJSON.stdout == "{\"schemes\":[\"notes\",\"todolist\"]}\n", "\(schemesJSON.stdout)")
        let image = try await Self.cli(f, "launch-image", "todolist://x")
        #expect(image.status == 3 && image.stdout.isEmpty, "\(image.status) \(image.stdout)\(image.stderr)")

        let opened = try await Self.cli(f, "open", "--json", "todolist://j")
        #expect(opened.status == 0 && opened.stdout.hasPrefix("{\"url\":\"todolist://j\",\"opened\":true,\"handler\":\"b.desktop\""),
                "\(opened.stdout)\(opened.stderr)")
        #expect(opened.stdout.contains("\"pid\":"), "\(opened.stdout)")
    }

    @Test func monitorPrintsSignalsAsTheyCome() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=\(try f.recorder("a")) %u\nMimeType=x-scheme-handler/todolist;")
        let out = f.root.appendingPathComponent("monitor.out")
        let monitor = try Tools.spawn([try Built.executable("schemebridge"), "monitor", "--json"],
                                      environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address], stdout: out)
        defer { monitor.signal(SIGTERM) }
        // The monitor is listening once it prints a HandlersChanged: new entries until one shows.
        let lines = { (try? String(contentsOf: out, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? [] }
        var probes = 0
        #expect(await Tools.eventually {
            probes += 1
            try? f.entry("probe\(probes).desktop", "Name=P\nExec=/bin/true %u\nMimeType=x-scheme-handler/probe\(probes);")
            return await Tools.eventually(timeout: .seconds(2)) { lines().contains { $0.contains("\"HandlersChanged\"") } }
        }, "the monitor never printed a signal: \(lines())")
        let before = lines().count
        _ = try await Self.cli(f, "open", "todolist://seen by the monitor")
        _ = try await Self.cli(f, "open", "nothing://fails")
        try f.entry("n.desktop", "Name=N\nExec=\(try f.recorder("n")) %u\nMimeType=x-scheme-handler/newscheme;")
        let expected = ["\"URLHandled\"", "\"URLFailed\"", "\"newscheme\""]
        #expect(await Tools.eventually { expected.allSatisfy { e in lines().dropFirst(before).contains { $0.contains(e) } } }, "\(lines())")
        let all = Array(lines().dropFirst(before))
        #expect(all.contains { $0.hasPrefix("{\"signal\":\"URLHandled\",\"url\":\"todolist://seen by the monitor\",\"scheme\":\"todolist\",\"handler\":\"a.desktop\",\"details\":{") && $0.contains("\"method\":\"OpenURL\"") }, "\(all)")
        #expect(all.contains { $0.hasPrefix("{\"signal\":\"URLFailed\",\"url\":\"nothing://fails\",\"dbus_error\":\"\(ContractError.noHandler)\"") }, "\(all)")
        #expect(all.contains { $0 == "{\"signal\":\"HandlersChanged\",\"schemes\":[\"newscheme\"]}" }, "\(all)")
    }

    @Test func helpAndCompletionScripts() async throws {
        let exe = try Built.executable("schemebridge")
        let help = try await Tools.run([exe, "--help"])
        #expect(help.status == 0)
        for sub in ["open", "can-open", "handlers", "default", "schemes", "launch-image", "monitor"] {
            #expect(help.stdout.contains(sub), "\(sub) missing from --help")
        }
        #expect(help.stdout.contains("Exit status"))
        for shell in ["bash", "zsh", "fish"] {
            let script = try await Tools.run([exe, "--generate-completion-script", shell])
            #expect(script.status == 0 && script.stdout.contains("can-open") && script.stdout.contains("launch-image"), "\(shell): \(script.stderr)")
        }
    }
}
