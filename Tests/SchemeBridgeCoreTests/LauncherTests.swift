import CLinux
import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Real processes: a handler script records what it received.
@Suite struct LauncherTests {
    /// The test's folder, removed when the test ends.
    let folder = TemporaryFolder("sb-launch")
    var dir: URL { folder.url }

    /// A handler (`Scripts/record.sh`, copied here) that writes its argv (NUL-separated), session
    /// id, signal mask and stdin to files beside itself.
    func recorder() throws -> String {
        let path = dir.appendingPathComponent("record.sh").path
        try FileManager.default.copyItem(atPath: Scripts.path("record.sh"), toPath: path)
        chmod(path, 0o755)
        return path
    }

    func waitForFile(_ name: String) async -> String? {
        let url = dir.appendingPathComponent(name)
        for _ in 0..<250 {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("done").path) {
                return try? String(contentsOf: url, encoding: .utf8)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func hostileURLArrivesAsExactlyOneArgument() async throws {
        let url = #"-todolist://add?task="milk" 'eggs' $(touch /tmp/pwned) `id`; rm -rf / & echo | cat > x"#
        let exited = Mutex<Int32?>(nil)
        let pid = try ProcessLauncher().spawn(argv: [try recorder(), "--flag", url], environment: ["PATH": "/usr/bin:/bin", "SB_TEST": "x y"],
                                              workingDirectory: dir.path, onExit: { code in exited.withLock { $0 = code } })
        #expect(pid > 0)
        let argv = await waitForFile("argv")
        #expect(argv?.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init) == ["--flag", url])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/pwned"))
        let sid = await waitForFile("sid")
        let recordedPID = await waitForFile("pid")
        #expect(sid?.trimmingCharacters(in: .whitespacesAndNewlines) == recordedPID?.trimmingCharacters(in: .whitespacesAndNewlines), "a new session")
        let mask = await waitForFile("sigblk")
        #expect(mask?.contains("0000000000000000") == true, "an empty signal mask: \(mask ?? "none")")
        #expect(await waitForFile("stdin")?.hasPrefix("/dev/null") == true)
        #expect(await waitForFile("cwd")?.trimmingCharacters(in: .newlines) == dir.path)
        #expect(await waitForFile("env") == "x y")
        // The child is reaped and its exit reported.
        for _ in 0..<250 where exited.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(exited.withLock { $0 } == 0)
        #expect(kill(pid, 0) != 0, "no zombie left behind")
    }

    /// A handler gets exactly its environment: the base's variables (made into C strings once),
    /// with the launch's set over them, each once — and the base is left as it was for the next.
    @Test func aSpawnedProgramGetsTheBaseAndTheLaunchVariablesEachOnce() async throws {
        let out = dir.appendingPathComponent("environ").path
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        let base = SpawnEnvironment(["PATH": "/usr/bin:/bin", "HOME": "/home/u", "LANG": "C", "": "x", "A=B": "y"])
        let exited = Mutex<Int32?>(nil)
        for launch in [base.setting(["LANG": "de_DE.UTF-8", "SB_APP": "1"]).setting(["SB_APP": "2", "X=Y": "no"]), base, base.setting(["HOME": "/h"])] {
            exited.withLock { $0 = nil }
            ftruncate(fd, 0)
            lseek(fd, 0, SEEK_SET)
            _ = try ProcessLauncher().spawn(arguments: [Array("env".utf8), Array("-0".utf8)], environment: launch,
                                            stdout: fd, onExit: { code in exited.withLock { $0 = code } })
            for _ in 0..<500 where exited.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
            #expect(exited.withLock { $0 } == 0)
            let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\0").map(String.init)
            #expect(lines.sorted() == launch.lines.sorted())
        }
        #expect(Set(base.lines) == ["HOME=/home/u", "LANG=C", "PATH=/usr/bin:/bin"])
        let first = base.setting(["LANG": "de_DE.UTF-8", "SB_APP": "1"]).setting(["SB_APP": "2", "X=Y": "no"])
        #expect(first.lines.sorted() == ["HOME=/home/u", "LANG=de_DE.UTF-8", "PATH=/usr/bin:/bin", "SB_APP=2"])
    }

    @Test func exitCodesAndSignalsAreReported() async throws {
        let codes = Mutex<[Int32]>([])
        _ = try ProcessLauncher().spawn(argv: ["sh", "-c", "exit 7"], environment: ["PATH": "/usr/bin:/bin"], onExit: { c in codes.withLock { $0.append(c) } })
        _ = try ProcessLauncher().spawn(argv: ["sh", "-c", "kill -TERM $$"], environment: ["PATH": "/usr/bin:/bin"], onExit: { c in codes.withLock { $0.append(c) } })
        for _ in 0..<250 where codes.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(codes.withLock { $0.sorted() } == [7, 128 + 15])
    }

    /// Children started from many tasks at once, some ending while others start: each exit is
    /// reported once, with its own code (the reaper learns of a new child from its epoll set,
    /// without being woken for it).
    @Test func manyChildrenAtOnceAreEachReportedOnceWithTheirCode() async throws {
        final class Codes: Sendable {
            let reported = Mutex<[Int32: Int]>([:])
        }
        let codes = Codes()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask {
                    _ = try ProcessLauncher().spawn(argv: ["sh", "-c", "exit \(i % 20 + 1)"], environment: ["PATH": "/usr/bin:/bin"],
                                                    onExit: { c in codes.reported.withLock { $0[c, default: 0] += 1 } })
                }
            }
            try await group.waitForAll()
        }
        let deadline = ContinuousClock.now + .seconds(180)
        while codes.reported.withLock({ $0.values.reduce(0, +) }) < 40, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(codes.reported.withLock { $0 } == Dictionary(uniqueKeysWithValues: (1...20).map { (Int32($0), 2) }))
    }

    /// A reaper hosted by a loop (``ChildReaper/host()``, the D-Bus loop's poll set in the
    /// service): its descriptor polls readable once a watched child has ended, and
    /// ``ChildReaper/reapEnded()`` there reaps each child once, with its code — no zombie left.
    @Test func aHostedReaperReapsOnItsHostsLoop() async throws {
        let reaper = ChildReaper()
        let ready = try #require(reaper.host())
        /// `sh -c 'exit CODE'`, spawned without the process-wide reaper.
        func exiting(_ code: Int) -> pid_t {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("exit \(code)"), nil]
            defer { for p in argv { free(p) } }
            #expect(argv.withUnsafeBufferPointer { clinux_spawn_io("/bin/sh", $0.baseAddress, environ, nil, -1, -1, -1, 1, &pid) } == 0)
            return pid
        }
        let codes = Mutex<[Int32]>([])
        var pids: [Int32] = []
        for code in [3, 5, 0] {
            let pid = exiting(code)
            reaper.watch(pid: pid, onExit: { c in codes.withLock { $0.append(c) } })
            pids.append(pid)
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while codes.withLock({ $0.count }) < 3, ContinuousClock.now < deadline {
            var p = pollfd(fd: ready, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 100) > 0 { reaper.reapEnded() }
        }
        #expect(codes.withLock { $0.sorted() } == [0, 3, 5])
        #expect(reaper.watchedCount == 0)
        for pid in pids { #expect(kill(pid, 0) != 0, "no zombie left behind") }
        // A reaper whose own thread waits already cannot be hosted.
        let own = ChildReaper()
        own.watch(pid: exiting(0), onExit: nil)
        #expect(own.host() == nil)
    }

    /// The reaper's watch handed to `arming` (the service runs it after the method's reply) and
    /// run only once the child has ended: the child waits as a zombie, then is reaped with its
    /// code — no exit is lost for a handler that ends at once.
    @Test func aChildWatchedOnlyAfterItEndedIsReapedWithItsCode() async throws {
        let held = Mutex<[@Sendable () -> Void]>([])
        let codes = Mutex<[Int32]>([])
        let pid = try ProcessLauncher().spawn(arguments: ["/bin/sh", "-c", "exit 3"].map { Array($0.utf8) }, environment: SpawnEnvironment([:]),
                                              onExit: { c in codes.withLock { $0.append(c) } }, arming: { work in held.withLock { $0.append(work) } })
        func state() -> String? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
            return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while state().map({ $0 != "Z" }) ?? false, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(state() == "Z", "ended and not reaped before the watch")
        #expect(codes.withLock { $0 }.isEmpty)
        let arm = held.withLock { $0 }
        #expect(arm.count == 1)
        for work in arm { work() }
        while codes.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(codes.withLock { $0 } == [3])
        #expect(state() == nil, "no zombie left behind")
    }

    @Test func missingAndNonExecutableProgramsAreErrors() throws {
        #expect(throws: LaunchError.self) { try ProcessLauncher().spawn(argv: ["no-such-program-xyz"], environment: ["PATH": "/usr/bin"]) }
        let plain = dir.appendingPathComponent("plain.txt").path
        _ = FileManager.default.createFile(atPath: plain, contents: Data("hello".utf8))
        do {
            _ = try ProcessLauncher().spawn(argv: [plain], environment: [:])
            Issue.record("started a non-executable file")
        } catch {
            #expect(error.code == EACCES)
            #expect(error.description.contains("permission denied"))
        }
        do {
            _ = try ProcessLauncher().spawn(argv: ["/bin/true"], environment: [:], workingDirectory: "/no/such/dir")
            Issue.record("started in a missing directory")
        } catch {
            #expect(error.description.contains("does not exist"))
        }
        #expect(throws: LaunchError.self) { try ProcessLauncher().spawn(argv: [], environment: [:]) }
        #expect(throws: LaunchError.self) { try ProcessLauncher().spawn(argv: ["/bin/echo", "a\0b"], environment: [:]) }
    }

    @Test func pathLookupUsesTheGivenEnvironment() {
        #expect(ProgramLookup.find("sh", searchPath: ProgramLookup.searchPath(environment: ["PATH": "/nonexistent:/bin"])) == "/bin/sh")
        #expect(ProgramLookup.find("sh", searchPath: ProgramLookup.searchPath(environment: ["PATH": "/nonexistent"])) == nil)
        #expect(ProgramLookup.find("./x", searchPath: ["/bin"]) == nil, "a relative path would depend on the service's directory")
        #expect(ProgramLookup.searchPath(environment: ["PATH": ""]) == ["/usr/local/bin", "/usr/bin", "/bin"])
    }
}
