import Foundation
import Glibc
import LinuxSystem
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The pieces behind caller identification: the blocking-thread pool it runs on, the Exec rule, lineage, recent launches.
@Suite struct IdentificationTests {
    /// A job that blocks until released (a read on a file system that never answers).
    final class Blocker: Sendable {
        private let released = Atomic<Bool>(false)
        func wait() { while !released.load(ordering: .acquiring) { usleep(2000) } }
        func release() { released.store(true, ordering: .releasing) }
    }

    @Test func aStuckJobTimesOutAndOthersStillRun() async {
        let threads = BlockingThreadPool(name: "sb-test", timeout: .milliseconds(300), maximumThreads: 2)
        let blocker = Blocker()
        defer { blocker.release() }
        let stuck = await threads.run { blocker.wait(); return 1 }
        #expect(stuck == nil)
        #expect(await threads.run { 2 } == 2)
        // The answer comes just before that job's thread frees its slot.
        #expect(await waitUntil(timeout: .seconds(30)) { threads.runningCount == 1 } != nil)
    }

    @Test func whenEveryThreadIsStuckNewJobsAreRefusedAtOnce() async {
        let threads = BlockingThreadPool(name: "sb-test", timeout: .milliseconds(200), maximumThreads: 2)
        let blocker = Blocker()
        defer { blocker.release() }
        async let a = threads.run { blocker.wait(); return 1 }
        async let b = threads.run { blocker.wait(); return 1 }
        let (first, second) = await (a, b)
        #expect(first == nil && second == nil)
        let started = ContinuousClock.now
        #expect(await threads.run { 3 } == nil)
        #expect(ContinuousClock.now - started < .milliseconds(200))
        blocker.release()
        // The threads come back once their jobs end.
        #expect(await waitUntil(timeout: .seconds(30)) { threads.runningCount == 0 } != nil)
        #expect(await threads.run { 4 } == 4)
    }

    /// A thread whose job ended takes the next job (no new thread), and ends once it has been
    /// idle for its lifetime; many jobs at once never keep more threads than the maximum.
    /// The calling thread's id (`/proc/thread-self` names `PID/task/TID`).
    static func threadID() -> pid_t {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        let text = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return pid_t(text.split(separator: "/").last ?? "") ?? -1
    }

    @Test func aThreadWhoseJobEndedTakesTheNextThenEndsWhenIdle() async throws {
        // Parked for as long as the test may take to come back (a loaded machine must not decide).
        let threads = BlockingThreadPool(name: "sb-test", timeout: .seconds(300), maximumThreads: 3, idleLifetime: .seconds(600))
        let first = try #require(await threads.run { Self.threadID() })
        #expect(await waitUntil(timeout: .seconds(60)) { threads.idleCount == 1 } != nil)
        let second = try #require(await threads.run { Self.threadID() })
        #expect(second == first)
        // Twenty jobs at once: every one runs, on at most three threads, which stay for the next.
        let tids = await withTaskGroup(of: pid_t?.self) { group in
            for _ in 0..<20 { group.addTask { await threads.run { usleep(2000); return Self.threadID() } } }
            return await group.reduce(into: [pid_t?]()) { $0.append($1) }
        }
        #expect(tids.allSatisfy { $0 != nil })
        #expect(Set(tids.compactMap { $0 }).count <= 3)
        // A job's answer comes before its thread frees its slot: wait for the slots, not the answers.
        #expect(await waitUntil(timeout: .seconds(60)) { threads.runningCount == 0 } != nil)
        #expect(threads.idleCount <= 3)
        // With a short idle lifetime the thread ends once its job is done (only waited for).
        let brief = BlockingThreadPool(name: "sb-test", timeout: .seconds(300), maximumThreads: 3, idleLifetime: .seconds(1))
        let gone = try #require(await brief.run { Self.threadID() })
        #expect(await waitUntil(timeout: .seconds(60)) { brief.idleCount == 0 && brief.runningCount == 0 && access("/proc/self/task/\(gone)", F_OK) != 0 } != nil,
                "an idle thread did not end")
    }

    @Test func systemPaths() throws {
        #expect(ExecIdentityRule.isSystemPath("/usr/bin/env"))
        #expect(!ExecIdentityRule.isSystemPath("relative/path"))
        #expect(!ExecIdentityRule.isSystemPath("/nonexistent/program"))
        let dir = NSTemporaryDirectory() + "sb-rule-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/program"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        chmod(dir, 0o755)
        chmod(file, 0o755)
        #expect(ExecIdentityRule.isSystemPath(file) == (getuid() == 0))  // root-owned below the sticky /tmp
        chmod(dir, 0o777)
        #expect(!ExecIdentityRule.isSystemPath(file))  // anyone could replace it
        chmod(dir, 0o755)
        // A user-writable entry names a system program only when the program is the user's.
        let rule = ExecIdentityRule(home: dir, userApplications: dir + "/applications")
        #expect(!rule.entry(at: dir + "/applications/x.desktop", in: dir + "/applications", mayName: "/usr/bin/env"))
        #expect(rule.entry(at: dir + "/applications/x.desktop", in: dir + "/applications", mayName: file))
    }

    @Test func lineageWalksUpToInit() {
        let ancestry = CallerAncestry(cliPath: nil, ownAppIDs: [])
        let chain = ancestry.lineage(of: getpid())
        #expect(chain.first == getpid())
        #expect(chain.contains(getppid()) || getppid() == 1)
        #expect(!chain.contains(1))
        #expect(ancestry.lineage(of: 999_999_99).isEmpty == false)  // the pid itself, unread beyond
    }

    @Test func recentLaunchesMatchTheSameURLFromTheLaunchedProcess() async throws {
        let tree = XDGTree(dataDirCount: 1)
        _ = tree.entry(1, "h.desktop", schemes: ["s"])
        let registry = tree.registry()
        defer { registry.close() }
        let entry = try #require(registry.entry(id: "h.desktop"))
        let launches = RecentLaunches()
        launches.record(url: "s://a", entry: entry, pid: 4242)
        let none: (String) async -> Int32? = { _ in nil }
        #expect(await launches.handingBack("s://a", lineage: [9, 4242, 7], activatedPID: none)?.handlerID == "h.desktop")
        #expect(await launches.handingBack("s://b", lineage: [9, 4242, 7], activatedPID: none) == nil)
        #expect(await launches.handingBack("s://a", lineage: [9, 7], activatedPID: none) == nil)
        launches.record(url: "s://c", entry: entry, busName: "org.example.H")
        #expect(await launches.handingBack("s://c", lineage: [5, 6], activatedPID: { $0 == "org.example.H" ? 6 : nil }) != nil)
        #expect(RecentLaunches.message(launches.launches(of: "s://a")[0]).contains("hands the URL back"))
    }

    @Test func anExecThroughASymlinkMatchesTheResolvedExecutable() throws {
        let tree = XDGTree(dataDirCount: 1)
        let bin = tree.root + "/bin"
        tree.mkdir(bin)
        tree.write(bin + "/tool-1.2", "#!/bin/sh\n")
        chmod(bin + "/tool-1.2", 0o755)
        try FileManager.default.createSymbolicLink(atPath: bin + "/tool", withDestinationPath: "tool-1.2")
        _ = tree.entry(1, "tool.desktop", exec: bin + "/tool %u")
        let registry = tree.registry()
        defer { registry.close() }
        #expect(registry.applicationIDs(executing: bin + "/tool-1.2") == ["tool.desktop"])
        #expect(registry.applicationIDs(executing: bin + "/tool") == ["tool.desktop"])
    }

    /// The map of programs reached through a symlink resolves only programs that are symlinks
    /// (a listing per directory tells): a bare `Exec` found on `PATH` through a link of another
    /// name still matches, a program under its own name matches by name, and neither a program
    /// that does not exist nor one of another name that is no link matches.
    @Test func onlySymlinkedProgramsAreResolvedAndTheyStillMatch() throws {
        let tree = XDGTree(dataDirCount: 1)
        let bin = tree.bin
        tree.mkdir(bin)
        for name in ["editor-2", "plain", "other"] {
            tree.write(bin + "/" + name, "#!/bin/sh\n")
            chmod(bin + "/" + name, 0o755)
        }
        try FileManager.default.createSymbolicLink(atPath: bin + "/editor", withDestinationPath: "editor-2")
        _ = tree.entry(1, "editor.desktop", exec: "editor %u")
        _ = tree.entry(1, "plain.desktop", exec: bin + "/plain %u")
        _ = tree.entry(1, "gone.desktop", exec: bin + "/gone %u")
        let registry = tree.registry()
        defer { registry.close() }
        #expect(registry.applicationIDs(executing: bin + "/editor-2") == ["editor.desktop"])
        #expect(registry.applicationIDs(executing: bin + "/plain") == ["plain.desktop"])
        #expect(registry.applicationIDs(executing: bin + "/other").isEmpty)
        var listings: [String: Set<String>?] = [:]
        let path = [bin, "/usr/bin"]
        #expect(ProgramLookup.mayBeSymlink("editor", searchPath: path, listings: &listings))
        #expect(ProgramLookup.mayBeSymlink(bin + "/editor", searchPath: path, listings: &listings))
        #expect(!ProgramLookup.mayBeSymlink(bin + "/plain", searchPath: path, listings: &listings))
        #expect(!ProgramLookup.mayBeSymlink(bin + "/gone", searchPath: path, listings: &listings))
        #expect(!ProgramLookup.mayBeSymlink("relative/plain", searchPath: path, listings: &listings))
        // A directory that cannot be listed may hold a link.
        #expect(ProgramLookup.mayBeSymlink("/nonexistent-dir/tool", searchPath: path, listings: &listings))
        #expect(listings[bin] != nil)
    }

    /// One directory under two names (`/bin` and `/usr/bin` on a merged `/usr`, both on `PATH`)
    /// is listed once: the second name gets the first listing (a link made in between is not
    /// in it, which shows no second listing was made), and a bare `Exec` found through either
    /// name still matches.
    @Test func oneDirectoryUnderTwoNamesIsListedOnce() throws {
        let tree = XDGTree(dataDirCount: 1)
        let bin = tree.bin
        tree.mkdir(bin)
        tree.write(bin + "/editor-2", "#!/bin/sh\n")
        chmod(bin + "/editor-2", 0o755)
        try FileManager.default.createSymbolicLink(atPath: bin + "/editor", withDestinationPath: "editor-2")
        let alias = tree.root + "/bin-alias"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: bin)
        var listings: [String: Set<String>?] = [:]
        #expect(ProgramLookup.linkNames(in: bin, listings: &listings) == ["editor"])
        try FileManager.default.createSymbolicLink(atPath: bin + "/later", withDestinationPath: "editor-2")
        #expect(ProgramLookup.linkNames(in: alias, listings: &listings) == ["editor"])
        var fresh: [String: Set<String>?] = [:]
        #expect(ProgramLookup.linkNames(in: alias, listings: &fresh) == ["editor", "later"])
        #expect(ProgramLookup.mayBeSymlink("editor", searchPath: [alias, bin], listings: &listings))
        #expect(!ProgramLookup.mayBeSymlink("editor-2", searchPath: [alias, bin], listings: &listings))
    }
}
