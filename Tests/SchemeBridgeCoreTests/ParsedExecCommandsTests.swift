import Testing
@testable import SchemeBridgeCore

/// A handler's `Exec` is parsed once per text (``ParsedExecCommands``), and the check before a
/// launch finds the entry's file with the directories computed once: both give exactly what the
/// per-launch work gave.
@Suite struct ParsedExecCommandsTests {
    /// Every field code, quoting and escape form; and URLs that a re-split would break.
    static let execs = [
        #""/opt/To Do/bin/todo" --title=%c %i --from %k --url=%u"#,
        #"app "a\\b" "\$HOME" "say \"hi\" \`x\`" --name="a b" "" %U"#,
        "app %% 100%% --file=%f",
        "app --all %F --end",
        "app %d %D %n %N %v %m keep",
        "app --icon-value=%i%c%k",
        "/bin/true %u",
        "/bin/true",
    ]
    static let urls = ["todo://a b", "todo://$(c);`d`|e>f", "file:///tmp/x%20y", "todo://\"q\"'s"]

    @Test func anExecParsedOnceGivesTheArgvOfAFreshParseAtEveryLaunch() throws {
        let urls = try Self.urls.map { try SchemeURL($0) }
        let context = ExecContext(icon: "todo-icon", name: "Tâches \"perso\"", desktopFilePath: "/usr/share/applications/todo.desktop")
        for exec in Self.execs {
            let fresh = try ExecCommand(exec)
            for round in 0..<3 {  // the first parses, the later ones come from the cache
                let cached = try #require(ParsedExecCommands.command(exec), "\(exec)")
                #expect(cached == fresh, "\(exec), round \(round)")
                for some in [[], [urls[0]], urls] {
                    #expect(cached.argumentByteVectors(for: some, context: context) == fresh.argumentByteVectors(for: some, context: context),
                            "\(exec) for \(some.map(\.string)), round \(round)")
                }
            }
        }
        // A different text is never answered with another's command; an invalid one is nil, each time.
        #expect(ParsedExecCommands.command("/bin/true --other %u")?.argumentVectors(for: [urls[0]]) == [["/bin/true", "--other", "todo://a b"]])
        for _ in 0..<2 { #expect(ParsedExecCommands.command("app 'quoted'") == nil) }
        #expect(ParsedExecCommands.count <= ParsedExecCommands.capacity)
    }

    /// The cache holds at most ``ParsedExecCommands/capacity`` texts, and still answers right once emptied.
    @Test func theCacheStaysSmallAndAnswersRightWhenRefilled() throws {
        for i in 0..<(ParsedExecCommands.capacity * 2 + 3) {
            let exec = "/usr/bin/app\(i) --open %u"
            #expect(ParsedExecCommands.command(exec)?.argumentVectors(for: [try SchemeURL("x:\(i)")]) == [["/usr/bin/app\(i)", "--open", "x:\(i)"]])
            #expect(ParsedExecCommands.count <= ParsedExecCommands.capacity)
        }
    }

    /// An entry's launch commands: what its `Exec` parsed anew gives, with the desktop file's path
    /// for `%k` (made only when the command has one).
    @Test func anEntrysLaunchCommandsAreThoseOfItsExecParsedAnew() throws {
        let t = XDGTree()
        let withPath = t.entry(1, "vendor/todo.desktop", schemes: ["todo"], exec: "\"/opt/To Do/bin/todo\" --from %k --url=%u",
                               extra: "Icon=/icons/todo.png\nPath=/tmp")
        t.entry(1, "plain.desktop", schemes: ["plain"], exec: "/bin/true %u")
        let r = t.registry()
        let urls = [try SchemeURL("todo://a b"), try SchemeURL("todo://$(c)")]
        for _ in 0..<2 {
            let e = try #require(r.entry(id: "vendor-todo.desktop"))
            #expect(e.launchCommands(for: urls).map(\.argv) == urls.map { ["/opt/To Do/bin/todo", "--from", withPath, "--url=" + $0.string] })
            #expect(e.launchCommands(for: urls).allSatisfy { $0.workingDirectory == "/tmp" })
            let p = try #require(r.entry(id: "plain.desktop"))
            #expect(p.launchCommands(for: urls).map(\.argv) == urls.map { ["/bin/true", $0.string] })
        }
        #expect(try ExecCommand("a --from %k").namesDesktopFile)
        #expect(try ExecCommand("a --from=x%kx").namesDesktopFile)
        #expect(try !ExecCommand("a %% k %u %c %i").namesDesktopFile)
    }

    /// Which relative paths name an entry's file below its directory: the byte scan refuses what
    /// the component split refused, and a `/` byte heading a combined character too.
    @Test func plainRelativePathsAreThoseTheSplitAccepted() {
        func split(_ path: String) -> Bool {  // the rule before: components cut at `/` characters
            guard path.hasSuffix(".desktop"), !path.hasPrefix("/") else { return false }
            return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        }
        let accepted = ["a.desktop", "vendor/a.desktop", "a/.../b.desktop", "..a/b.desktop", "a../.b/c.desktop", ".desktop", "x/..desktop",
                        "é/ü.desktop"]
        let refused = ["/a.desktop", "a//b.desktop", "./a.desktop", "a/./b.desktop", "a/../b.desktop", "../a.desktop", "a/..", "a.txt",
                       "a/", "", "a.desktop/", ".", "..", "a/.desktop.", "a.desktop\u{301}"]
        for p in accepted {
            #expect(Registry.isPlainRelativePath(p), "\(p)")
            #expect(split(p), "\(p)")
        }
        for p in refused {
            #expect(!Registry.isPlainRelativePath(p), "\(p)")
            #expect(!split(p), "\(p)")
        }
        // A `/` byte followed by a combining mark is one character to the split: refused here.
        #expect(!Registry.isPlainRelativePath("a//\u{301}b.desktop"))
        #expect(split("a//\u{301}b.desktop"))
    }

    /// The directories the file check looks in are the environment's, computed once.
    @Test func theFileCheckUsesTheEnvironmentsApplicationsDirectories() {
        let t = XDGTree()
        t.entry(1, "a.desktop", schemes: ["a"], exec: "/bin/true %u")
        let r = t.registry()
        #expect(r.applicationsDirectories == r.directories.applicationsDirectories)
        #expect(r.applicationsDirectories.count >= 2)
    }
}
