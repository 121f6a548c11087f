import Foundation
import Testing
import DBusTestSupport

/// The real caller behind our CLI: an installed test app runs `xdg-open URL` or `gio open URL`,
/// our desktop entry is the scheme's default, so `schemebridge open URL` asks the service, and the
/// service names the app (not our CLI) as the caller: `source` of URLHandled and of the handler's
/// environment, and the caller that `X-SchemeBridge-AllowedCallers` judges.
@Suite struct CallerThroughCLITests {
    struct World {
        let f: ServiceFixture
        /// The test apps' programs (shell scripts run through their shebang, as a launcher would).
        let asker: String, other: String
        /// What a program the app runs sees: the private bus, our CLI on PATH, no desktop.
        let environment: [String: String]
    }

    /// Our shipped desktop entry as the default for `todolist` and `vault`; a recording `todo`
    /// handler; a `vault` handler that admits org.example.Asker only; two installed test apps.
    static func world() throws -> World {
        let f = try ServiceFixture()
        let ours = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/io.github.schemebridge.SchemeBridge.desktop"), encoding: .utf8)
        try ours.write(to: f.applications.appendingPathComponent("io.github.schemebridge.SchemeBridge.desktop"), atomically: true, encoding: .utf8)
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("vault.desktop", "Name=Vault\nExec=\(try f.recorder("vault")) %u\nMimeType=x-scheme-handler/vault;\nX-SchemeBridge-AllowedCallers=org.example.Asker;")
        // The app runs the command it is given (and waits for it, as an app waits for xdg-open),
        // then records its status.
        func app(_ name: String) throws -> String {
            let path = f.bin.appendingPathComponent(name).path
            try "#!/bin/sh\n\"$@\"\nstatus=$?\necho $status > '\(f.records.path)/\(name).status'\nexit $status\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            return path
        }
        let asker = try app("asker-app"), other = try app("other-app")
        try f.entry("org.example.Asker.desktop", "Name=Asker\nExec=\(asker) %u\n")
        try f.entry("org.example.Other.desktop", "Name=Other\nExec=\(other) %u\n")
        try """
            [Default Applications]
            x-scheme-handler/todolist=io.github.schemebridge.SchemeBridge.desktop
            x-scheme-handler/vault=io.github.schemebridge.SchemeBridge.desktop
            """.write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let env = [
            "DBUS_SESSION_BUS_ADDRESS": f.bus.address, "DBUS_STARTER_ADDRESS": "", "DBUS_STARTER_BUS_TYPE": "",
            "XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path,
            "XDG_CONFIG_HOME": f.configHome.path, "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path,
            "HOME": f.root.path, "PATH": Built.programs.path + ":/usr/bin:/bin",
            // xdg-open's generic path (no desktop) opens a scheme through the default entry only
            // with a display set; nothing here talks to it.
            "XDG_CURRENT_DESKTOP": "", "DESKTOP_SESSION": "", "DISPLAY": ":999", "WAYLAND_DISPLAY": "", "BROWSER": "",
            "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": "", "GIO_LAUNCHED_DESKTOP_FILE": "",
        ]
        return World(f: f, asker: asker, other: other, environment: env)
    }

    /// `dbus-monitor` watching URLHandled on the fixture's bus, ready once it printed its preamble.
    static func monitor(_ f: ServiceFixture) async throws -> (ChildProcess, () -> String) {
        let log = f.root.appendingPathComponent("monitor.log")
        let monitor = try Tools.spawn(["dbus-monitor", "--address", f.bus.address,
                                       "type='signal',interface='\(ServiceFixture.interface)',member='URLHandled'"], stdout: log)
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(await Tools.eventually { text().contains("member=NameLost") }, "dbus-monitor never started")
        return (monitor, text)
    }

    /// Whether the monitor saw URLHandled for `url` whose details' `source` is `source`.
    static func handled(_ text: String, url: String, source: String) -> Bool {
        text.components(separatedBy: "signal time=").contains { block in
            block.contains("string \"\(url)\"") && block.range(of: #"string "source"\s*variant\s*string "\#(source)""#, options: .regularExpression) != nil
        }
    }

    @Test func xdgOpenRunByAnAppMakesTheAppTheCaller() async throws {
        let w = try Self.world()
        defer { w.f.stop() }
        _ = try await w.f.dbusSend("CanOpenURL", "string:todolist:warm")  // the service is up, the monitor can listen
        let (monitor, text) = try await Self.monitor(w.f)
        defer { monitor.signal(SIGTERM) }

        // The app runs xdg-open, which runs our entry's `schemebridge open URL`.
        let run = try await Tools.run([w.asker, "xdg-open", "todolist://from-asker"], environment: w.environment)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(await w.f.recordedArgv("todo") == ["todolist://from-asker"])
        #expect(w.f.recordedEnv("todo").contains("source=org.example.Asker\n"), "\(w.f.recordedEnv("todo"))")
        #expect(await Tools.eventually { Self.handled(text(), url: "todolist://from-asker", source: "org.example.Asker") }, "\(text())")

        // The vault admits the Asker, through xdg-open and our CLI…
        let admitted = try await Tools.run([w.asker, "xdg-open", "vault://asker"], environment: w.environment)
        #expect(admitted.status == 0, "\(admitted.stderr)")
        #expect(await w.f.recordedArgv("vault") == ["vault://asker"])
        // …and refuses the other app the same way: it is the app that is judged, not our CLI.
        let refused = try await Tools.run([w.other, "xdg-open", "vault://other"], environment: w.environment)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the caller is org.example.Other"), "\(refused.stderr)")
        #expect(await w.f.recordedArgv("vault") == ["vault://asker"])
    }

    @Test func ourCLIRunDirectlyByAnAppIsThatApp() async throws {
        let w = try Self.world()
        defer { w.f.stop() }
        // No trampoline at all: the app runs `schemebridge open` itself.
        let cli = try Built.executable("schemebridge")
        let run = try await Tools.run([w.asker, cli, "open", "vault://direct"], environment: w.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(w.f.recordedEnv("vault").contains("source=org.example.Asker\n"), "\(w.f.recordedEnv("vault"))")
    }

    /// Issue 27, item 8: `schemebridge` serves a plain `open URL` itself and runs the full
    /// command line (`schemebridge-cli`, in its place) for anything else. That program is ours
    /// too: an app running `schemebridge open` with an option is still that app, and the vault
    /// admits it; the other app is refused the same way.
    @Test func ourFullCommandLineRunByAnAppIsThatApp() async throws {
        let w = try Self.world()
        defer { w.f.stop() }
        let cli = try Built.executable("schemebridge")
        let run = try await Tools.run([w.asker, cli, "open", "--no-launch-image", "vault://full"], environment: w.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(await w.f.recordedArgv("vault") == ["vault://full"])
        #expect(w.f.recordedEnv("vault").contains("source=org.example.Asker\n"), "\(w.f.recordedEnv("vault"))")
        let refused = try await Tools.run([w.other, cli, "open", "--no-launch-image", "vault://other"], environment: w.environment)
        #expect(refused.status != 0 && refused.stderr.contains("the caller is org.example.Other"), "\(refused.stderr)")
    }

    /// Issue 21, item 9: a shell that only names the app's script in its arguments
    /// (`bash -s /path/to/app`, commands from stdin) is not the app: the vault, which admits the
    /// Asker only, refuses it, and nothing is launched. The app itself still gets in.
    @Test func aShellNamingTheAppsScriptIsNotTheApp() async throws {
        let w = try Self.world()
        defer { w.f.stop() }
        let cli = try Built.executable("schemebridge")
        let bash = try Tools.path(of: "bash")
        // Two commands, so that bash waits for the CLI instead of becoming it.
        let run = try await Tools.run([bash, "-s", w.asker], environment: w.environment, stdin: "\(cli) open vault://stdin\ntrue\n")
        #expect(run.stderr.contains("the caller is ") && !run.stderr.contains("the caller is org.example.Asker"), "\(run.status) \(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.f.records.appendingPathComponent("vault.argv").path) == false, "the vault was opened")
        // The Asker really running (its shell holds its script) is the Asker.
        let real = try await Tools.run([w.asker, cli, "open", "vault://real"], environment: w.environment)
        #expect(real.status == 0, "\(real.stderr)")
        #expect(await w.f.recordedArgv("vault") == ["vault://real"])
        #expect(w.f.recordedEnv("vault").contains("source=org.example.Asker\n"), "\(w.f.recordedEnv("vault"))")
    }

    @Test func aCopyOfOurCLIElsewhereIsNotTrusted() async throws {
        let w = try Self.world()
        defer { w.f.stop() }
        // The same program, but not the file beside the service: it is identified as itself, so
        // the vault refuses it even though the Asker runs it.
        let copy = w.f.bin.appendingPathComponent("schemebridge").path
        try FileManager.default.copyItem(atPath: try Built.executable("schemebridge"), toPath: copy)
        let run = try await Tools.run([w.asker, copy, "open", "vault://copy"], environment: w.environment)
        #expect(run.status != 0)
        #expect(run.stderr.contains("the caller is ") && !run.stderr.contains("the caller is org.example.Asker"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.f.records.appendingPathComponent("vault.argv").path) == false)
    }

    @Test func gioOpenRunByAnApp() async throws {
        let w = try Self.world()
        defer { w.f.stop() }
        _ = try await w.f.dbusSend("CanOpenURL", "string:todolist:warm")
        let (monitor, text) = try await Self.monitor(w.f)
        defer { monitor.signal(SIGTERM) }
        // gio goes through our entry too…
        let run = try await Tools.run([w.asker, "gio", "open", "todolist://from-gio"], environment: w.environment)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(await w.f.recordedArgv("todo") == ["todolist://from-gio"])
        #expect(await Tools.eventually { text().contains("string \"todolist://from-gio\"") }, "\(text())")
        // …but GLib spawns through an intermediate child that exits at once: our CLI is adopted
        // by init before it even starts, so no ancestor is left to find. Outside a scope (as
        // here), the caller is our CLI itself; in a desktop session the app runs in its
        // `app-…` scope, which the CLI inherits (shown below when this machine lets the test
        // make one).
        let cli = try Built.executable("schemebridge")
        #expect(Self.handled(text(), url: "todolist://from-gio", source: cli) || Self.handled(text(), url: "todolist://from-gio", source: ""),
                "\(text())")

        guard let scope = try? AppScope(appID: "org.example.Asker") else { return }
        defer { scope.remove() }
        let scoped = try await Tools.run(["/bin/sh", "-c", "echo $$ > '\(scope.procs)' && exec \"$@\"", "sh", w.asker, "gio", "open", "todolist://scoped"],
                                         environment: w.environment)
        #expect(scoped.status == 0, "\(scoped.stderr)")
        #expect(await Tools.eventually { Self.handled(text(), url: "todolist://scoped", source: "org.example.Asker") }, "\(text())")
    }
}

/// A systemd-style `app-test-<id>-<n>.scope` cgroup made by the test (needs a writable cgroup
/// hierarchy: root on this machine and CI). `init` throws when none can be made.
struct AppScope {
    let directory: String
    var procs: String { directory + "/cgroup.procs" }

    init(appID: String) throws {
        let name = "app-test-\(appID)-\(getpid()).scope"
        for base in ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"] {
            let dir = base + "/schemebridge-tests/" + name
            if (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil,
               FileManager.default.isWritableFile(atPath: dir + "/cgroup.procs") {
                directory = dir
                return
            }
        }
        throw ToolError("no writable cgroup hierarchy")
    }

    /// Removes the scope once its processes are gone (a few seconds at most; else it stays).
    func remove() {
        for _ in 0..<100 {
            let procs = (try? String(contentsOfFile: procs, encoding: .utf8)) ?? ""
            if procs.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { break }
            usleep(50_000)
        }
        rmdir(directory)
        rmdir((directory as NSString).deletingLastPathComponent)
    }
}
