import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// The contract end to end: bus activation of the built daemon, real clients, real handler processes.
@Suite struct OpenURLTests {

    @Test func hostileURLReachesTheHandlerAsOneArgumentAndNoShellRuns() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let program = try f.recorder("todo")
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(program) --open %u\nMimeType=x-scheme-handler/todolist;")
        let marker = f.root.appendingPathComponent("pwned").path
        let url = "todolist:-x \"q\" 'q' $(touch \(marker)) `touch \(marker)`; touch \(marker) & |cat"
        let can = try await f.dbusSend("CanOpenURL", "string:\(url)")  // bus activation starts the daemon
        #expect(can.stdout.contains("boolean true"), "\(can.stdout)\(can.stderr)")
        let open = try await f.dbusSend("OpenURL", "string:\(url)")
        #expect(open.stdout.contains("boolean true"), "\(open.stderr)")
        #expect(await f.recordedArgv("todo") == ["--open", url])
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// At the default log level an open that succeeds writes no line (`URLHandled` reports it;
    /// the line is debug-level), and one that fails still does, at notice.
    @Test func anOpenIsLoggedOnlyWhenItFailsAtTheDefaultLevel() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        let open = try await f.dbusSend("OpenURL", "string:todolist://logged")
        #expect(open.stdout.contains("boolean true"), "\(open.stderr)")
        let failed = try await f.dbusSend("OpenURL", "string:nohandler://logged")
        #expect(failed.stderr.contains(ContractError.noHandler.description), "\(failed.stderr)")
        // The failure is logged after the first open's reply, and so after anything that open logged.
        #expect(await Tools.eventually { f.serviceLog.contains("could not open nohandler://logged") }, "\(f.serviceLog)")
        #expect(!f.serviceLog.contains("todolist://logged"), "\(f.serviceLog)")
    }

    /// Handlers the service spawned are reaped once they exit — no zombie left — on its D-Bus
    /// loop thread: the service runs no reaper thread of its own.
    @Test func spawnedHandlersAreReapedOnTheLoopWithNoZombieLeft() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        for i in 0..<3 {
            let open = try await f.dbusSend("OpenURL", "string:todolist://\(i)")
            #expect(open.stdout.contains("boolean true"), "\(open.stderr)")
        }
        let pid = try #require(await f.servicePID())
        let tasks = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).map { "/proc/\(pid)/task/\($0)" }
        func zombies() -> [String] {
            tasks.flatMap { ((try? String(contentsOfFile: $0 + "/children", encoding: .utf8)) ?? "").split(separator: " ").map(String.init) }
                .filter { ((try? String(contentsOfFile: "/proc/\($0)/stat", encoding: .utf8)) ?? "").contains(") Z ") }
        }
        #expect(await Tools.eventually { zombies().isEmpty }, "not reaped: \(zombies())")
        let threads = tasks.map { ((try? String(contentsOfFile: $0 + "/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines) }
        #expect(!threads.isEmpty && !threads.contains("reaper"), "\(threads)")
    }

    /// A handler's exit wakes no thread of the service but the loop that reaps it: SIGCHLD is
    /// dropped, not queued — a queued one woke the main thread (idle in `pause`) and libdispatch's
    /// signalfd watcher at every exit.
    @Test func aHandlersExitDoesNotWakeTheServicesMainThread() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        // The service starts by activation with the first open.
        let first = try await f.dbusSend("OpenURL", "string:todolist://first")
        #expect(first.stdout.contains("boolean true"), "\(first.stderr)")
        let pid = try #require(await f.servicePID())
        func mainThreadSwitches() -> Int? {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        }
        let tasks = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).map { "/proc/\(pid)/task/\($0)" }
        func children() -> [String] { tasks.map { (try? String(contentsOfFile: $0 + "/children", encoding: .utf8)) ?? "" }.filter { !$0.isEmpty } }
        #expect(await Tools.eventually { children().isEmpty }, "not reaped: \(children())")
        let before = try #require(mainThreadSwitches())
        for i in 0..<3 {
            let open = try await f.dbusSend("OpenURL", "string:todolist://\(i)")
            #expect(open.stdout.contains("boolean true"), "\(open.stderr)")
        }
        #expect(await Tools.eventually { children().isEmpty }, "not reaped: \(children())")
        #expect(mainThreadSwitches() == before, "the main thread woke \((mainThreadSwitches() ?? before) - before) times for 3 exits")
    }

    /// `DBusActivatable=true` on an entry whose id makes no bus name (`9todo.desktop`): checked
    /// when the entry is read, so the app is started by its `Exec` (it failed at launch before,
    /// `LaunchFailed` "does not make a valid bus name").
    @Test func anActivatableEntryWhoseIDIsNoBusNameIsStartedByItsExec() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let program = try f.recorder("nine")
        try f.entry("9todo.desktop", "Name=Nine\nExec=\(program) %u\nMimeType=x-scheme-handler/nine;\nDBusActivatable=true")
        let open = try await f.dbusSend("OpenURL", "string:nine://x")
        #expect(open.stdout.contains("boolean true"), "\(open.stdout)\(open.stderr)")
        #expect(await f.recordedArgv("nine") == ["nine://x"])
    }

    @Test func optionsThroughGdbusPickTheHandlerAndPassTheToken() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=\(try f.recorder("a")) %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("b.desktop", "Name=B\nExec=\(try f.recorder("b"))\nMimeType=x-scheme-handler/todolist;")
        let handlers = try await f.dbusSend("HandlersForScheme", "string:TodoList")
        #expect(handlers.stdout.contains("\"a.desktop\"") && handlers.stdout.contains("\"b.desktop\""), "\(handlers.stdout)\(handlers.stderr)")
        let r = try await f.gdbus("OpenURLWithOptions", "todolist://x y", "{'handler': <'b.desktop'>, 'activation-token': <'tok-1'>, 'launch-image': <false>}")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("'handler': <'b.desktop'>") && r.stdout.contains("'pid': <uint32 "), "\(r.stdout)")
        // An Exec without %u gets the URL appended as the last argument.
        #expect(await f.recordedArgv("b") == ["todolist://x y"])
        #expect(f.recordedEnv("b").contains("token=tok-1\nstartup=tok-1\n"))
        #expect(f.recordedEnv("b").contains("source=/usr/bin/gdbus"), "\(f.recordedEnv("b"))")

        let wrongType = try await f.gdbus("OpenURLWithOptions", "todolist://x", "{'handler': <5>}")
        #expect(wrongType.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs") && wrongType.stderr.contains("must be a string"), "\(wrongType.stderr)")
        let notAHandler = try await f.gdbus("OpenURLWithOptions", "todolist://x", "{'handler': <'zzz.desktop'>}")
        #expect(notAHandler.stderr.contains(ContractError.invalidHandler.description), "\(notAHandler.stderr)")
    }

    @Test func everyContractErrorAMessageCanAct() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("broken.desktop", "Name=Broken\nExec=\(f.bin.path)/missing-program %u\nMimeType=x-scheme-handler/broken;")
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        let invalid = try await f.dbusSend("CanOpenURL", "string:no scheme here")
        #expect(invalid.stderr.contains(ContractError.invalidURL.description) && invalid.stderr.contains("no scheme"), "\(invalid.stderr)")
        let control = try await f.dbusSend("OpenURL", "string:good://a\u{7}b")
        #expect(control.stderr.contains(ContractError.invalidURL.description) && control.stderr.contains("control character"), "\(control.stderr)")
        let noHandler = try await f.dbusSend("OpenURL", "string:nothing://x")
        #expect(noHandler.stderr.contains(ContractError.noHandler.description) && noHandler.stderr.contains("MimeType=x-scheme-handler/nothing"), "\(noHandler.stderr)")
        let launch = try await f.dbusSend("OpenURL", "string:broken://x")
        #expect(launch.stderr.contains(ContractError.launchFailed.description) && launch.stderr.contains("missing-program"), "\(launch.stderr)")
        let setBad = try await f.dbusSend("SetDefaultHandler", "string:good", "string:broken.desktop")
        #expect(setBad.stderr.contains(ContractError.invalidHandler.description) && setBad.stderr.contains("x-scheme-handler/good"), "\(setBad.stderr)")
        let badScheme = try await f.dbusSend("HandlersForScheme", "string:1nope")
        #expect(badScheme.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(badScheme.stderr)")
        let tooLong = try await f.dbusSend("CanOpenURL", "string:good:" + String(repeating: "a", count: 70_000))
        #expect(tooLong.stderr.contains(ContractError.invalidURL.description) && tooLong.stderr.contains("64 KiB"), "\(tooLong.stderr)")
        let wrongSig = try await f.dbusSend("OpenURL", "int32:4")
        #expect(wrongSig.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(wrongSig.stderr)")
        // Still serving after all that.
        let ok = try await f.dbusSend("OpenURL", "string:good://fine")
        #expect(ok.stdout.contains("boolean true"), "\(ok.stderr)")
    }

    @Test func setDefaultWritesMimeappsThatGioAgreesWith() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=\(try f.recorder("a")) %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("b.desktop", "Name=B\nExec=\(try f.recorder("b")) %u\nMimeType=x-scheme-handler/todolist;")
        let before = try await f.dbusSend("DefaultHandler", "string:todolist")
        #expect(before.stdout.contains("\"a.desktop\""), "\(before.stdout)")
        let set = try await f.dbusSend("SetDefaultHandler", "string:todolist", "string:b.desktop")
        #expect(set.status == 0, "\(set.stderr)")
        let after = try await f.dbusSend("DefaultHandler", "string:todolist")
        #expect(after.stdout.contains("\"b.desktop\""), "\(after.stdout)")
        let env = ["XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path,
                   "XDG_CONFIG_HOME": f.configHome.path, "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path, "HOME": f.root.path]
        let gio = try await Tools.run(["gio", "mime", "x-scheme-handler/todolist"], environment: env)
        #expect(gio.stdout.contains("Default application for “x-scheme-handler/todolist”: b.desktop"), "\(gio.stdout)\(gio.stderr)")
        _ = try await f.dbusSend("OpenURL", "string:todolist://now-b")
        #expect(await f.recordedArgv("b") == ["todolist://now-b"])
    }

    @Test func loopSafetySkipsSchemeBridgeItself() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry(Contract.ownDesktopID, "Name=SchemeBridge\nExec=schemebridge open %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("other-router.desktop", "Name=Other copy\nExec=/usr/local/bin/schemebridge open %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("z.desktop", "Name=Z\nExec=\(try f.recorder("z")) %u\nMimeType=x-scheme-handler/todolist;")
        try "[Default Applications]\nx-scheme-handler/todolist=\(Contract.ownDesktopID)\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let handlers = try await f.dbusSend("HandlersForScheme", "string:todolist")
        #expect(!handlers.stdout.contains("SchemeBridge.desktop") && !handlers.stdout.contains("other-router") && handlers.stdout.contains("z.desktop"), "\(handlers.stdout)")
        _ = try await f.dbusSend("OpenURL", "string:todolist://loop")
        #expect(await f.recordedArgv("z") == ["todolist://loop"])
    }

    @Test func introspectionMatchesTheShippedXML() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let live = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply=literal", "--dest=\(ServiceFixture.name)",
                                        ServiceFixture.path, "org.freedesktop.DBus.Introspectable.Introspect"])
        let shipped = try ShippedInterface.file(ServiceFixture.interface)
        let liveElement = ShippedInterface.element(live.stdout, ServiceFixture.interface)
        #expect(liveElement != nil, "\(live.stdout)\(live.stderr)")
        #expect(liveElement == ShippedInterface.element(shipped, ServiceFixture.interface))
    }

    @Test func terminalHandlersRunInTheUsersTerminal() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.recorder("xdg-terminal-exec")  // stands in for the user's terminal launcher
        try f.entry("tui.desktop", "Name=TUI\nExec=tui-app --url %u\nTerminal=true\nMimeType=x-scheme-handler/tui;")
        _ = try await f.dbusSend("OpenURL", "string:tui://x y")
        #expect(await f.recordedArgv("xdg-terminal-exec") == ["tui-app", "--url", "tui://x y"])
    }
}
