import Foundation
import Testing
@testable import SchemeBridgeCore

/// The app behind our CLI, on a fake /proc: which ancestor is the caller, which are skipped, and
/// who gets the walk at all.
@Suite struct CallerAncestryTests {
    /// A fake /proc plus the files its processes run: `sys/` holds "system files" (the trust
    /// predicate says so), `apps/` the installed apps' programs, `bin/schemebridge` our CLI.
    final class FakeProc {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-anc-\(UUID().uuidString.prefix(8))")
        var proc: String { root.appendingPathComponent("proc").path }
        var cli: String { root.appendingPathComponent("bin/schemebridge").path }
        func file(_ relative: String) -> String { root.appendingPathComponent(relative).path }

        init() throws {
            for d in ["proc", "bin", "sys", "apps", "elsewhere"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(d), withIntermediateDirectories: true)
            }
            for f in ["bin/schemebridge", "elsewhere/schemebridge", "sys/dash", "sys/xdg-open", "sys/gio", "apps/asker", "elsewhere/xdg-open"] {
                _ = FileManager.default.createFile(atPath: file(f), contents: Data("x".utf8))
            }
            // The app is a shell script.
            _ = FileManager.default.createFile(atPath: file("apps/asker"), contents: Data("#!\(file("sys/dash"))\nexec \"$@\"\n".utf8))
        }
        deinit { try? FileManager.default.removeItem(at: root) }

        /// Process `pid` with parent `parent`, running `exe` (relative to the root) with `argv`,
        /// with descriptors open on the files `holding` (absolute paths).
        /// With `startTime`, its `stat` has the start time (field 22), as the kernel's does.
        func process(_ pid: Int32, parent: Int32, exe: String, argv: [String], cgroup: String? = nil, comm: String = "x",
                     holding: [String] = [], startTime: UInt64? = nil) throws {
            let dir = URL(fileURLWithPath: proc).appendingPathComponent("\(pid)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try stat(pid, parent: parent, comm: comm, startTime: startTime).write(to: dir.appendingPathComponent("stat"), atomically: true, encoding: .utf8)
            try Data(argv.flatMap { Array($0.utf8) + [0] }).write(to: dir.appendingPathComponent("cmdline"))
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("exe").path, withDestinationPath: file(exe))
            if let cgroup { try cgroup.write(to: dir.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8) }
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("fd"), withIntermediateDirectories: true)
            for (i, path) in holding.enumerated() {
                try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("fd/\(10 + i)").path, withDestinationPath: path)
            }
        }

        /// A `/proc/<pid>/stat` line (fields 23 on as the kernel writes them are left out).
        func stat(_ pid: Int32, parent: Int32, comm: String = "x", startTime: UInt64? = nil) -> String {
            guard let startTime else { return "\(pid) (\(comm)) S \(parent) \(pid) \(pid) 0 -1 4194560\n" }
            return "\(pid) (\(comm)) S \(parent) \(pid) \(pid) 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \(startTime) 1000\n"
        }

        func ancestry(steps: AncestorSteps? = nil) -> CallerAncestry {
            let sys = file("sys")
            return CallerAncestry(cliPath: cli, ownAppIDs: ["io.github.schemebridge.SchemeBridge"], procRoot: proc,
                                  isSystemFile: { $0.hasPrefix(sys + "/") }, steps: steps)
        }

        /// Installed apps: `apps/asker` is org.example.Asker; `elsewhere/xdg-open` is org.example.Fake.
        func installedApp(_ path: String) -> String? {
            [file("apps/asker"): "org.example.Asker", file("elsewhere/xdg-open"): "org.example.Fake"][path]
        }
    }

    @Test func xdgOpenRunByAnAppLeadsToTheApp() throws {
        let p = try FakeProc()
        try p.process(80, parent: 70, exe: "sys/dash", argv: ["/bin/sh", p.file("apps/asker"), "todolist://x"], holding: [p.file("apps/asker")])
        try p.process(90, parent: 80, exe: "sys/dash", argv: ["/bin/sh", p.file("sys/xdg-open"), "todolist://x"])
        try p.process(100, parent: 90, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"], comm: "schemebridge")
        let a = p.ancestry()
        #expect(a.runsOurCLI(pid: 100))
        #expect(a.appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Asker")
    }

    /// Issue 27, item 8: what the walk judged of an ancestor (here an app's script run by a shell)
    /// is reused for the same process running the same file — so a browser or script that runs
    /// our CLI again is not read again in full — and never for another process under the same pid
    /// (another start time) or after the process ran another program (another executable file).
    @Test func anAncestorsJudgementIsReusedOnlyForTheSameProcessAndFile() throws {
        let p = try FakeProc()
        let steps = AncestorSteps(lifetime: .seconds(3600))
        let dir = URL(fileURLWithPath: p.proc).appendingPathComponent("80")
        try p.process(80, parent: 1, exe: "sys/dash", argv: ["/bin/sh", p.file("apps/asker"), "todolist://x"], holding: [p.file("apps/asker")], startTime: 500)
        try p.process(100, parent: 80, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"], startTime: 900)
        let a = p.ancestry(steps: steps)
        #expect(a.appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Asker")
        #expect(steps.count == 1)  // the shell; never our CLI's own process
        // The same process: what it runs is not read again (its argv gone, the answer stays).
        try FileManager.default.removeItem(at: dir.appendingPathComponent("cmdline"))
        #expect(a.appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Asker")
        // Another process under pid 80 (another start time) is read afresh: no argv, no script.
        try p.stat(80, parent: 1, startTime: 501).write(to: dir.appendingPathComponent("stat"), atomically: true, encoding: .utf8)
        #expect(a.appBehindCLI(pid: 100, installedApp: p.installedApp) == nil)
        // The same process after an exec of another program (another file) is read afresh too.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("exe"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("exe").path, withDestinationPath: p.file("elsewhere/xdg-open"))
        #expect(a.appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Fake")
        // Without kept steps, every walk reads everything (what the process runs now).
        #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Fake")
        let expired = AncestorSteps(lifetime: .zero)
        let b = p.ancestry(steps: expired)
        #expect(b.appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Fake")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("exe"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("exe").path, withDestinationPath: p.file("apps/asker"))
        #expect(b.appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Asker")
    }

    /// Issue 21, item 9: a path in a shell's arguments names the app only when the shell runs that
    /// script (started by its `#!` line, holding it open).
    @Test func aScriptPathNamesTheAppOnlyWhenItRuns() throws {
        let asker = try FakeProc().file("apps/asker")
        let cases: [(argv: [String], exe: String, holding: [String], app: String?)] = [
            (["/bin/sh", asker, "x"], "sys/dash", [asker], "org.example.Asker"),
            // `bash -s /path/to/app <<< "schemebridge open …"`: the app is an argument, never run.
            (["bash", "-s", asker], "sys/dash", [], nil),
            // …even with the file open on a descriptor of its own.
            (["bash", "-s", asker], "sys/dash", [asker], nil),
            // The script's path as argv[1] but not open: a rewritten argv, or an interpreter that is done with it.
            (["/bin/sh", asker], "sys/dash", [], nil),
            // A program that is not the script's interpreter, holding the script open.
            ([asker.replacingOccurrences(of: "apps/asker", with: "elsewhere/schemebridge"), asker], "elsewhere/schemebridge", [asker], nil),
        ]
        for c in cases {
            let p = try FakeProc()
            try p.process(80, parent: 1, exe: c.exe, argv: c.argv.map { $0.replacingOccurrences(of: asker, with: p.file("apps/asker")) },
                          holding: c.holding.map { _ in p.file("apps/asker") })
            try p.process(100, parent: 80, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"])
            #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == c.app, "\(c.argv) holding \(c.holding.count)")
        }
    }

    @Test func shellsRunningATrampolineAndGioAreSkippedToo() throws {
        let p = try FakeProc()
        try p.process(80, parent: 1, exe: "apps/asker", argv: [p.file("apps/asker")])
        try p.process(85, parent: 80, exe: "sys/dash", argv: ["sh", "-c", "exec xdg-open \"$1\"", "sh", "todolist://x"])
        try p.process(90, parent: 85, exe: "sys/gio", argv: ["gio", "open", "todolist://x"])
        try p.process(100, parent: 90, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"])
        #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Asker")
    }

    @Test func aTrampolineThatIsNotASystemFileIsNotSkipped() throws {
        let p = try FakeProc()
        // A user's own program named xdg-open (installed as org.example.Fake) between the app and
        // our CLI: it is not skipped, so it is the caller, not the app above it.
        try p.process(80, parent: 1, exe: "apps/asker", argv: [p.file("apps/asker")])
        try p.process(90, parent: 80, exe: "elsewhere/xdg-open", argv: [p.file("elsewhere/xdg-open"), "todolist://x"])
        try p.process(100, parent: 90, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"])
        #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Fake")
    }

    @Test func aProgramMerelyNamedSchemebridgeGetsNoWalk() throws {
        let p = try FakeProc()
        try p.process(80, parent: 1, exe: "apps/asker", argv: [p.file("apps/asker")])
        try p.process(100, parent: 80, exe: "elsewhere/schemebridge", argv: ["schemebridge", "open", "todolist://x"], comm: "schemebridge")
        let a = p.ancestry()
        #expect(!a.runsOurCLI(pid: 100))
        #expect(a.appBehindCLI(pid: 100, installedApp: p.installedApp) == nil)
        // No CLI known to the service: nobody gets the walk.
        let none = CallerAncestry(cliPath: nil, ownAppIDs: [], procRoot: p.proc)
        #expect(none.appBehindCLI(pid: 100, installedApp: p.installedApp) == nil)
    }

    @Test func aReparentedCLIHasNoAncestor() throws {
        let p = try FakeProc()
        // `gio open` exited at once (GLib spawns through an intermediate child): init adopted us.
        try p.process(100, parent: 1, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"])
        #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == nil)
        // A parent that is gone (unreadable) ends the walk too.
        try p.process(101, parent: 4242, exe: "bin/schemebridge", argv: ["schemebridge", "open", "todolist://x"])
        #expect(p.ancestry().appBehindCLI(pid: 101, installedApp: p.installedApp) == nil)
    }

    @Test func theAppsScopeInheritedByTheCLIIsTheAnswerAndOurOwnScopeIsSkipped() throws {
        let p = try FakeProc()
        let appScope = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Scoped-4242.scope\n"
        try p.process(100, parent: 1, exe: "bin/schemebridge", argv: ["schemebridge", "open", "x:y"], cgroup: appScope)
        #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == "org.example.Scoped")
        // A launcher put our CLI in a scope of its own (our id): skipped, the walk goes on.
        let ownScope = "0::/user.slice/app.slice/app-glib-io.github.schemebridge.SchemeBridge-77.scope\n"
        try p.process(80, parent: 1, exe: "apps/asker", argv: [p.file("apps/asker")])
        try p.process(101, parent: 80, exe: "bin/schemebridge", argv: ["schemebridge", "open", "x:y"], cgroup: ownScope)
        #expect(p.ancestry().appBehindCLI(pid: 101, installedApp: p.installedApp) == "org.example.Asker")
    }

    @Test func aLoopOrADeepChainEnds() throws {
        let p = try FakeProc()
        try p.process(100, parent: 200, exe: "bin/schemebridge", argv: ["schemebridge"])
        try p.process(200, parent: 100, exe: "sys/dash", argv: ["/bin/sh", p.file("sys/xdg-open")])
        #expect(p.ancestry().appBehindCLI(pid: 100, installedApp: p.installedApp) == nil)
    }

    @Test func parentFromStatWithParenthesesInTheName() {
        #expect(CallerAncestry.parentPID(fromStat: Array("42 (a) b (c)) S 7 42 42 0".utf8)) == 7)
        #expect(CallerAncestry.parentPID(fromStat: Array("42 (x".utf8)) == nil)
        #expect(CallerAncestry.parentPID(fromStat: []) == nil)
    }

    @Test func theRealCLIIsFoundBesideTheService() throws {
        let p = try FakeProc()
        #expect(CallerAncestry.cliBeside(serviceExecutable: p.file("bin/schemebridged")) == p.cli)
        #expect(CallerAncestry.cliBeside(serviceExecutable: p.file("apps/schemebridged")) == nil)
        #expect(CallerAncestry.cliBeside(serviceExecutable: nil) == nil)
    }
}
