import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The `ask` option end to end: scripted chooser programs (`[Chooser] Command=`) that pick, cancel
/// or hang, a python3-dbus `Chooser1` client on the bus, and no chooser at all.
@Suite struct ChooserTests {
    @Test func aConfiguredChooserPicksAndSeesTheCandidates() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("picker", "echo b.desktop"))\n")
        let asker = try f.pythonNamed("asker-app")
        #expect(try await f.open("todo://pick?x=1", from: asker) == "opened b.desktop")
        #expect(await f.handled("b", "todo://pick?x=1"))
        let saw = f.chooserSaw("picker")
        #expect(saw.hasPrefix("a.desktop\tAlpha\talpha\nb.desktop\tBeta\t\n"), "\(saw)")
        #expect(saw.contains("SCHEMEBRIDGE_CHOOSER_CALLER=\(asker)\n") && saw.contains("SCHEMEBRIDGE_CHOOSER_SUBJECT=todo\n")
                && saw.contains("SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER=1\n"), "\(saw)")
        // `handler` wins over `ask`: no chooser.
        #expect(try await f.open("todo://named", from: asker, "a.desktop") == "opened a.desktop")
        #expect(f.chooserRuns("picker") == 1)
        // The CLI asks the same way; OpenURLWithReply takes `ask` too.
        let cli = try await CLITests.cli(f, "open", "--ask", "--json", "todo://cli")
        #expect(cli.status == 0 && cli.stdout.contains("\"handler\":\"b.desktop\""), "\(cli.stdout)\(cli.stderr)")
        let reply = try await f.gdbus("OpenURLWithReply", "todo://reply", "{'ask': <true>}")
        #expect(reply.status == 0 && reply.stdout.contains("/request/"), "\(reply.stdout)\(reply.stderr)")
        #expect(await f.handled("b", "todo://reply"))
        #expect(f.chooserRuns("picker") == 3)
    }

    @Test func cancellingLaunchesNothing() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("canceller", "exit 1"))\n")
        let r = try await f.open("todo://cancel", from: try f.pythonNamed("asker-app"))
        #expect(r.hasPrefix("error Cancelled "), "\(r)")
        let cli = try await CLITests.cli(f, "open", "--ask", "todo://cancel-cli")
        #expect(cli.status == 5, "a cancelled chooser is exit 5: \(cli.status) \(cli.stderr)")
        // A chooser that prints nothing cancels too (asked again until the service has read the new config).
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("silent", "exit 0"))\n")
        var last = ""
        let ran = try await Tools.eventually {
            last = try await f.open("todo://silent", from: try f.pythonNamed("asker-app"))
            return f.chooserRuns("silent") > 0
        }
        #expect(ran)
        #expect(last.hasPrefix("error Cancelled "), "\(last)")
        for name in ["a", "b"] {
            #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("\(name).argv").path), "\(name) was started")
        }
    }

    /// A chooser that cannot show its dialog (zenity without a usable locale or display) is an
    /// error the caller receives, `NoChooser` (CLI exit 3), with its message in the service's
    /// log: never a cancel, which would leave a received file silently unopened.
    @Test func aChooserThatFailsIsAnErrorNotACancel() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("broken", "echo 'the dialog cannot open the display' >&2; exit 2"))\n")
        let r = try await f.open("todo://broken", from: try f.pythonNamed("asker-app"))
        #expect(r.hasPrefix("error NoChooser ") && r.contains("exit status 2"), "\(r)")
        let cli = try await CLITests.cli(f, "open", "--ask", "todo://broken-cli")
        #expect(cli.status == 3 && cli.stderr.contains("chooser failed"), "a failed chooser is exit 3: \(cli.status) \(cli.stderr)")
        #expect(f.serviceLog.contains("the dialog cannot open the display"), "\(f.serviceLog)")
        for name in ["a", "b"] {
            #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("\(name).argv").path), "\(name) was started")
        }
    }

    /// A chooser that answers anything but the dialogs' message — the old line protocol's bare
    /// id, another version, a pick without an id — is a failed chooser (`NoChooser`), never a pick
    /// nor a cancel; a `failed` answer's reason reaches the caller.
    @Test func anAnswerOfAnotherProtocolIsAnErrorNotAPickOrACancel() async throws {
        // One service per answer: each reads its [Chooser] Command= at start. A config edited
        // under a running service takes effect within 200 ms (PolicyStore), which an open made
        // at once after the edit could beat.
        for (i, answer) in ["b.desktop", #"{"version":2,"answer":"chosen","id":"b.desktop"}"#, #"{"version":1,"answer":"chosen"}"#,
                            #"{"version":1,"answer":"failed","reason":"no GTK here"}"#].enumerated() {
            let f = try ServiceFixture()
            defer { f.stop() }
            let chooser = f.bin.appendingPathComponent("answers-\(i)").path
            try "#!/bin/sh\nhead -n 1 > /dev/null\necho '\(answer)'\n".write(toFile: chooser, atomically: true, encoding: .utf8)
            chmod(chooser, 0o755)
            try f.writeConfig("[Chooser]\nCommand=\(chooser)\n")
            try f.installTodoHandlers()
            let asker = try f.pythonNamed("asker-app")
            let r = try await f.open("todo://answer-\(i)", from: asker)
            #expect(r.hasPrefix("error NoChooser ") && r.contains("chooser failed"), "\(answer): \(r)")
            if answer.contains("failed") { #expect(r.contains("no GTK here"), "\(r)") }
            #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("b.argv").path), "b was started")
        }
    }

    @Test func aChooserThatHangsIsStoppedAfterItsTimeout() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        // It holds on a gate nobody opens: only the service's timeout ends it.
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("hanger", f.gate.shellWait("never")))\nTimeout=1\n")
        let r = try await f.open("todo://hang", from: try f.pythonNamed("asker-app"))
        #expect(r.hasPrefix("error Cancelled ") && r.contains("no answer in 1 s"), "\(r)")
        #expect(f.chooserRuns("hanger") == 1)
        // The chooser is gone (stopped, reaped): no child of the service runs it any more.
        #expect(await Tools.eventually { await !Self.serviceRuns(f, "hanger") }, "the hanging chooser is still running")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("a.argv").path))
    }

    /// A python3-dbus client owning `Chooser1` (`Clients/Chooser/chooser1.py`) that logs each
    /// `Choose` call (subject, candidates, context, as JSON lines) to `records/chooser1.log` and
    /// answers `answers` in turn (the last one again and again): `"b.desktop always"`,
    /// `"b.desktop"`, `""` (a cancel).
    static func chooser1Client(_ f: ServiceFixture, answers: [String]) async throws -> ChildProcess {
        let asked = f.records.appendingPathComponent("chooser1.log").path
        let answerList = String(decoding: try JSONEncoder().encode(answers), as: UTF8.self)
        let names = [ChooserContract.interface.rawValue, ChooserContract.busName.rawValue, ChooserContract.objectPath.rawValue]
        let client = try Tools.spawn(Clients.command("Chooser/chooser1", [asked, answerList] + names),
                                     environment: ["SB_BUS": f.bus.address], stderr: f.records.appendingPathComponent("chooser1.err"))
        let owned = try await Tools.eventually {
            try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus.NameHasOwner", "string:\(ChooserContract.busName)"]).stdout.contains("true")
        }
        if !owned { client.signal(SIGTERM) }
        try #require(owned, "the Chooser1 client did not start")
        return client
    }

    /// What the `Chooser1` client of ``chooser1Client(_:answers:)`` was asked.
    static func chooser1Log(_ f: ServiceFixture) -> String {
        (try? String(contentsOf: f.records.appendingPathComponent("chooser1.log"), encoding: .utf8)) ?? ""
    }

    @Test func aChooser1ClientOnTheBusIsAskedWhenTheConfigNamesIt() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.writeConfig("[Chooser]\nBus=true\n")
        let client = try await Self.chooser1Client(f, answers: ["b.desktop", "", "b.desktop always"])
        defer { client.signal(SIGTERM) }
        let asker = try f.pythonNamed("asker-app")
        #expect(try await f.open("todo://once?token=SECRET", from: asker) == "opened b.desktop")
        #expect(try await f.open("todo://cancel", from: asker).hasPrefix("error Cancelled"))
        let log = Self.chooser1Log(f)
        #expect(log.contains(#"["todo", [["a.desktop", "Alpha", "alpha"], ["b.desktop", "Beta", ""]], {"#), "\(log)")
        #expect(log.contains(#""caller": "\#(asker)""#) && log.contains(#""kind": "scheme""#) && log.contains(#""can-remember": true"#), "\(log)")
        // Told what is chosen for and who asks, never the URL.
        #expect(!log.contains("todo://") && !log.contains("SECRET") && !log.contains(#""url""#), "\(log)")
        // "always" from the client the user named is remembered for this caller.
        #expect(try await f.open("todo://remember", from: asker) == "opened b.desktop")
        let choices = try await f.gdbus("Choices")
        #expect(choices.stdout.contains("('\(asker)', 'todo', 'b.desktop')"), "\(choices.stdout)\(choices.stderr)")
    }

    /// Issue 21, item 10: a program that owns the `Chooser1` name first is not asked unless the
    /// config names the bus chooser, so it neither sees the URL nor answers "always" for the user.
    @Test func aChooser1ImpostorIsNotAskedAndReroutesNothing() async throws {
        // No config and no display: before, the impostor was the chooser.
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        defer { f.stop() }
        try f.installTodoHandlers()
        let impostor = try await Self.chooser1Client(f, answers: ["b.desktop always"])
        defer { impostor.signal(SIGTERM) }
        let asker = try f.pythonNamed("asker-app")
        let asked = try await f.open("todo://pay?code=SECRET", from: asker)
        #expect(asked.hasPrefix("error NoChooser "), "\(asked)")
        #expect(Self.chooser1Log(f).isEmpty, "the impostor was asked: \(Self.chooser1Log(f))")
        // A configured program is asked instead of it, and later plain opens keep the default.
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("picker", "echo a.desktop"))\n")
        var last = ""
        #expect(try await Tools.eventually {
            last = try await f.open("todo://pay?code=SECRET2", from: asker)
            return f.chooserRuns("picker") > 0
        })
        #expect(last == "opened a.desktop", "\(last)")
        #expect(try await f.open("todo://plain", from: asker, "plain") == "opened")
        #expect(await f.handled("a", "todo://plain"))
        #expect(Self.chooser1Log(f).isEmpty, "the impostor was asked: \(Self.chooser1Log(f))")
        #expect(try await f.gdbus("Choices").stdout.contains("todo") == false)
    }

    /// Issue 21, item 11: one program under many names (hard links, each a new executable path)
    /// takes at most two chooser slots, not all four: an app with an identity of its own still
    /// gets its chooser. Before: 4 of the 6 names got a chooser and the app was RateLimited.
    @Test func oneProgramUnderManyNamesCannotHoldEveryChooserSlot() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        // Each chooser holds until the test opens the gate, then picks Alpha.
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("holder", f.gate.shellWait("answer") + "\necho a.desktop"))\nTimeout=3600\n")
        // An app known by its entry (installed before the service starts, so it is known at once).
        let app = try f.pythonNamed("other-app")
        try f.entry("other.desktop", "Name=Other\nExec=\(app)\n")
        let names = try (1...6).map { try f.pythonNamed("many-\($0)") }
        let answered = Answers()
        let asks = names.enumerated().map { i, python in
            Task { let r = try await f.open("todo://many/\(i)", from: python); await answered.add(r); return r }
        }
        // The refused ones answer at once; the admitted ones wait for their chooser.
        let settled = await Tools.eventually { await answered.all.count >= 4 && f.chooserRuns("holder") >= 2 }
        let refused = await answered.all
        #expect(settled, "answered: \(refused), choosers \(f.chooserRuns("holder"))")
        #expect(refused.count == 4 && refused.allSatisfy { $0.hasPrefix("error RateLimited ") }, "\(refused)")
        #expect(f.chooserRuns("holder") == 2)
        // An app known by its entry is not crowded out.
        let other = Task { try await f.open("todo://other", from: app) }
        #expect(await Tools.eventually { f.chooserRuns("holder") == 3 }, "the app got no chooser\n\(f.serviceLog)")
        f.release("answer")
        #expect(try await other.value == "opened a.desktop")
        var opened = 0
        for ask in asks { if try await ask.value == "opened a.desktop" { opened += 1 } }
        #expect(opened == 2)
    }

    /// The answers of asks, as they come.
    actor Answers {
        private(set) var all: [String] = []
        func add(_ answer: String) { all.append(answer) }
    }

    @Test func withoutAnyChooserAskIsAClearError() async throws {
        // No config, no client on the bus, no display for the shipped chooser.
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        defer { f.stop() }
        try f.installTodoHandlers()
        let r = try await f.open("todo://nobody", from: try f.pythonNamed("asker-app"))
        #expect(r.hasPrefix("error NoChooser ") && r.contains("[Chooser] Command="), "\(r)")
        let cli = try await CLITests.cli(f, "open", "--ask", "todo://nobody")
        #expect(cli.status == 3 && cli.stderr.contains("no chooser"), "\(cli.status) \(cli.stderr)")
        // A scheme nobody handles is NoHandler, with or without a chooser.
        #expect(try await f.open("nothing://x", from: try f.pythonNamed("asker-app")).hasPrefix("error NoHandler"))
    }

    /// Whether a child of the service runs a program whose command line mentions `name`.
    static func serviceRuns(_ f: ServiceFixture, _ name: String) async -> Bool {
        guard let service = await f.servicePID() else { return false }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(service)/task")) ?? []
        return tasks.contains { task in
            let children = (try? String(contentsOfFile: "/proc/\(service)/task/\(task)/children", encoding: .utf8)) ?? ""
            return children.split(separator: " ").contains { pid in
                ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()).range(of: Data(name.utf8)) != nil
            }
        }
    }
}
