import Testing
@testable import SchemeBridgeCore

/// Handler commands that hand a URL back, as the entries found in the wild write them.
@Suite struct LoopSafetyTests {
    @Test(arguments: [
        ["schemebridge", "open", "x:"], ["/usr/local/bin/schemebridge", "open", "x:"],
        ["env", "/usr/bin/schemebridge", "open", "x:"], ["env", "-i", "A=b", "schemebridge", "open", "x:"], ["env", "-i", "schemebridge", "open", "x:"], ["env", "-u", "X", "schemebridge", "open", "x:"],
        ["/usr/bin/env", "LANG=C", "nice", "-n", "5", "schemebridge", "open", "x:"],
        ["sh", "-c", "exec schemebridge open \"$1\"", "sh", "x:"], ["bash", "-c", "/opt/sb/bin/schemebridge open $0", "x:"],
        ["xdg-open", "x:"], ["/usr/bin/xdg-open", "x:"], ["gio", "open", "x:"], ["env", "kde-open5", "x:"],
        ["sh", "-c", "xdg-open \"$0\"", "x:"], ["setsid", "-f", "gio", "open", "x:"], ["timeout", "5", "xdg-open", "x:"],
    ])
    func handsBack(_ argv: [String]) {
        #expect(LoopSafety.handsURLsBack(argv), "\(argv)")
    }

    @Test(arguments: [
        ["firefox", "x:"], ["schemebridge", "can-open", "x:"], ["gio", "info", "x:"], ["env", "A=b", "todo", "x:"],
        ["sh", "-c", "echo schemebridge; todo \"$0\"", "x:"], ["sh", "/usr/share/todo/run.sh", "x:"], ["python3", "-m", "xdg_open_alike", "x:"],
    ])
    func doesNotHandBack(_ argv: [String]) {
        #expect(!LoopSafety.handsURLsBack(argv), "\(argv)")
    }

    @Test func suchEntriesAreNeverHandlers() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(1, "loop-env.desktop", schemes: ["todolist"], exec: "env /usr/bin/schemebridge open %u")
        tree.entry(1, "loop-xdg.desktop", schemes: ["todolist"], exec: "xdg-open %u")
        tree.entry(1, "todo.desktop", schemes: ["todolist"], exec: "/bin/true %u")
        let router = URLRouter(registry: tree.registry(), ownDesktopIDs: [])
        #expect(router.handlers(forScheme: "todolist") == ["todo.desktop"])
    }
}
