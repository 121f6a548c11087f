import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// "Always" in a chooser: the choice applies to the caller that asked only (another app is still
/// asked, and keeps the default), to its plain opens too, survives a restart of the service, and
/// is forgotten on request. `[Routes]` send a caller's URLs to another handler before the defaults
/// and are shown by `schemebridge handlers`.
@Suite struct RememberedChoiceTests {
    @Test func alwaysAppliesToThatCallerOnlyAndSurvivesARestart() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("always-beta", "printf 'b.desktop\\talways\\n'"))\n")
        let one = try f.pythonNamed("app-one"), two = try f.pythonNamed("app-two")

        #expect(try await f.open("todo://1", from: one) == "opened b.desktop")
        #expect(f.chooserRuns("always-beta") == 1)
        // The same caller is not asked again, and its plain opens go to its choice too.
        #expect(try await f.open("todo://2", from: one) == "opened b.desktop")
        #expect(try await f.open("todo://3", from: one, "plain") == "opened")
        #expect(await f.handled("b", "todo://3"))
        #expect(f.chooserRuns("always-beta") == 1)
        // Another app keeps the default, and is asked when it asks.
        #expect(try await f.open("todo://4", from: two, "plain") == "opened")
        #expect(await f.handled("a", "todo://4"))
        #expect(try await f.open("todo://5", from: two) == "opened b.desktop")
        #expect(f.chooserRuns("always-beta") == 2)
        // The handler option still wins over a remembered choice.
        #expect(try await f.open("todo://6", from: one, "a.desktop") == "opened a.desktop")

        let listed = try await CLITests.cli(f, "choices")
        #expect(listed.stdout == "\(one)\ttodo\tb.desktop\n\(two)\ttodo\tb.desktop\n", "\(listed.stdout)\(listed.stderr)")
        let file = f.configHome.appendingPathComponent("schemebridge/choices")
        let mode = (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)
        let mimeapps = (try? String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)) ?? ""
        #expect(!mimeapps.contains("b.desktop"), "choices never go to mimeapps.list: \(mimeapps)")

        // A restart (kill -9; the next call activates it again) keeps them.
        let pid = try #require(await f.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await f.servicePID() != pid })
        #expect(try await f.open("todo://7", from: one, "plain") == "opened")
        #expect(await f.handled("b", "todo://7"))

        // Forgotten on request: the default again, and asked again.
        let forgot = try await CLITests.cli(f, "choices", "--forget", one, "todo")
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(try await f.open("todo://8", from: one, "plain") == "opened")
        #expect(await f.handled("a", "todo://8"))
        let again = try await CLITests.cli(f, "choices", "--forget", one, "todo")
        #expect(again.status == 3 && again.stderr.contains("nothing was remembered"), "\(again.stderr)")
        let forget = try await f.gdbus("ForgetChoice", two, "TODO")
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try await CLITests.cli(f, "choices").stdout.isEmpty)
    }

    @Test func routesWinOverDefaultsForTheirCallersAndShowInHandlers() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers(gamma: true)
        let one = try f.pythonNamed("app-one"), two = try f.pythonNamed("app-two")
        try f.writeConfig("""
            [Routes]
            todo from \(two)=c.desktop
            todo from /nowhere/*=b.desktop
            """)
        #expect(try await f.open("todo://r1", from: two, "plain") == "opened")
        #expect(await f.handled("c", "todo://r1"))
        #expect(try await f.open("todo://r2", from: one, "plain") == "opened")
        #expect(await f.handled("a", "todo://r2"))
        // `ask` does not ask a caller whose route decides.
        #expect(try await f.open("todo://r3", from: two) == "opened c.desktop")
        let handlers = try await CLITests.cli(f, "handlers", "todo")
        #expect(handlers.stdout == "a.desktop\nb.desktop\nc.desktop\nroute: from \(two) → c.desktop\nroute: from /nowhere/* → b.desktop\n",
                "\(handlers.stdout)\(handlers.stderr)")
        let json = try await CLITests.cli(f, "handlers", "todo", "--json")
        #expect(json.stdout.contains("\"routes\":[{\"from\":\"\(two)\",\"handler\":\"c.desktop\"}"), "\(json.stdout)")
        let routes = try await f.gdbus("Routes")
        #expect(routes.stdout.contains("('\(two)', 'todo', 'c.desktop')"), "\(routes.stdout)")
    }
}
