import Foundation
import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Who counts as a request's handler: real processes, and a pid handed to another process after
/// the handler ended (the kernel is made to reuse it through `ns_last_pid`; tests run as root).
@Suite struct HandlerProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin"]

    /// Set once, read from any thread.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    /// Spawns `argv` as the service spawns handlers (`held`: with a ``HandlerProcess`` opened in
    /// `onStart`); `reaped` is set once it has ended and been reaped.
    static func spawn(_ argv: [String], held: Bool = false) throws -> (pid: Int32, process: HandlerProcess?, reaped: Flag) {
        let process = Mutex<HandlerProcess?>(nil)
        let reaped = Flag()
        let pid = try ProcessLauncher().spawn(argv: argv, environment: environment,
                                              onStart: { pid in if held { process.withLock { $0 = HandlerProcess(pid: pid) } } },
                                              onExit: { _ in reaped.set() })
        return (pid, process.withLock { $0 }, reaped)
    }

    /// Takes the lock every test that sets `ns_last_pid` holds (ReplyTests too) from the start of
    /// the process whose pid it wants again until it has it: setting `ns_last_pid` hands recently
    /// freed pids out again, anyone's, so another such test meanwhile could take that pid. The
    /// lock goes with the returned descriptor.
    static func pidLock() -> Int32 {
        let lock = open("/tmp/schemebridge-tests-ns_last_pid.lock", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        return lock
    }

    /// Starts `argv` (a program that starts no other) as pid `target` (free now): `ns_last_pid`
    /// is set just below it before each spawn; a spawn that another process's fork beat to it is
    /// stopped and tried again, for a minute at most. Call it holding ``pidLock()``.
    static func spawn(_ argv: [String], asPID target: Int32) throws -> Int32? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if kill(target, 0) == 0 { return nil }   // someone else has it now
            let fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)
            guard fd >= 0 else { return nil }
            let text = "\(target - 1)"
            let wrote = write(fd, text, text.utf8.count)
            close(fd)
            guard wrote > 0 else { return nil }
            let pid = try spawn(argv).pid
            if pid == target { return pid }
            kill(pid, SIGKILL)
            usleep(1000)
        }
        return nil
    }

    @Test func aProcessThatGetsAHandlersPidAfterItEndedIsNotTheHandler() async throws {
        let lock = Self.pidLock()
        defer { if lock >= 0 { close(lock) } }
        // The handler, held by a pidfd from its start; while it runs, it and its children are it.
        let (handlerPID, held, reaped) = try Self.spawn(["/bin/sh", "-c", "sleep 600 & wait"], held: true)
        let process = try #require(held)
        #expect(process.isHeld && process.isRunning)
        #expect(ProcessLineage.isSelfOrDescendant(handlerPID, of: process))
        #expect(LaunchedHandler.spawned(process).includes(sender: ":1.7", pid: handlerPID, nameOwner: nil))
        let child = await Self.child(of: handlerPID)
        #expect(child.map { ProcessLineage.isSelfOrDescendant($0, of: process) } == true, "its child counts")

        // It ends and is reaped; the kernel gives its pid to another program.
        kill(-handlerPID, SIGKILL)   // its process group: the shell and its sleep (a session of its own)
        #expect(await waitUntil(timeout: .seconds(120)) { reaped.isSet } != nil, "the handler was never reaped")
        #expect(!process.isRunning)
        let impostor = try #require(try Self.spawn(["/bin/sleep", "600"], asPID: handlerPID),
                                    "could not have pid \(handlerPID) again (ns_last_pid needs root)")
        defer { kill(impostor, SIGKILL) }

        // By pid alone (the old rule) the impostor was the handler…
        #expect(ProcessLineage.isSelfOrDescendant(impostor, of: handlerPID))
        // …by the pidfd it is not, nor is its connection.
        #expect(!ProcessLineage.isSelfOrDescendant(impostor, of: process))
        #expect(!LaunchedHandler.spawned(process).includes(sender: ":1.9", pid: impostor, nameOwner: nil))
        #expect(!LaunchedHandler.activated(owner: ":1.7", process: process).includes(sender: ":1.9", pid: impostor, nameOwner: nil))
        // The activated app's own connection still is (its unique name is never reused).
        #expect(LaunchedHandler.activated(owner: ":1.7", process: process).includes(sender: ":1.7", pid: impostor, nameOwner: nil))
    }

    /// The first child of `pid` (read from /proc), once it has one.
    static func child(of pid: Int32) async -> Int32? {
        var found: Int32? = nil
        _ = await waitUntil(timeout: .seconds(120)) {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            found = text.split(separator: " ").first.flatMap { Int32($0) }
            return found != nil
        }
        return found
    }

    @Test func aCallbackRouteIsClaimedByItsHandlerOnly() async throws {
        let routes = CallbackRoutes()
        let group = try #require(routes.pin(["calcb://done"], to: "org.example.Caller.desktop", lifetime: .seconds(3600)))
        let (pid, held, _) = try Self.spawn(["/bin/sleep", "600"], held: true)
        defer { kill(pid, SIGKILL) }
        let process = try #require(held)
        // Not started yet: nobody is its handler.
        #expect(await routes.claim("calcb://done?result=x") { $0 != nil } == .refused)
        routes.started(group, handler: .spawned(process))
        let isHandler: (Int32) -> (LaunchedHandler?) async -> Bool = { p in { $0?.includes(sender: ":1.5", pid: p, nameOwner: nil) ?? false } }
        // A stranger (this test process) is refused, and the route stays.
        #expect(await routes.claim("calcb://done?result=x", isHandler: isHandler(getpid())) == .refused)
        #expect(await routes.claim("calcb://done", isHandler: isHandler(getpid())) == .refused)
        #expect(routes.count == 1)
        // A URL that only starts like it is not the callback.
        #expect(await routes.claim("calcb://doneX", isHandler: isHandler(getpid())) == .none)
        // The handler takes it, once.
        #expect(await routes.claim("calcb://done?result=x", isHandler: isHandler(pid)) == .pinned(entryID: "org.example.Caller.desktop"))
        #expect(routes.count == 0)
        #expect(await routes.claim("calcb://done?result=x", isHandler: isHandler(pid)) == .none)
        // A request that never started takes its routes with it.
        let dropped = try #require(routes.pin(["calcb://again"], to: "org.example.Caller.desktop", lifetime: .seconds(3600)))
        routes.drop(dropped)
        #expect(routes.count == 0)
    }
}
