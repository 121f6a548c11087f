import Foundation
import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Who counts as a request's handler: real processes, and a pid handed to another process after
/// the handler ended (the kernel is made to reuse it through clone3's `set_tid`; tests run as root).
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

    /// Starts `/bin/sleep 600` as pid `target` (free now): clone3(2) with `set_tid` (root only)
    /// makes a process with exactly that pid or fails, whatever other processes fork meanwhile.
    /// Its python parent (`Scripts/sleeper.py`) leaves at once (the sleeper is then init's).
    /// Returns the pid, or why not.
    static func sleeper(asPID target: Int32) throws -> String {
        let r = try run("/usr/bin/python3", [Scripts.path("sleeper.py"), "\(target)"], environment: environment)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + r.stderr
    }

    @Test func aProcessThatGetsAHandlersPidAfterItEndedIsNotTheHandler() async throws {
        // A handler, held by a pidfd from its start: while it runs, it and its children are it.
        let (shellPID, shell, _) = try Self.spawn(["/bin/sh", "-c", "sleep 600 & wait"], held: true)
        defer { kill(-shellPID, SIGKILL) }   // its process group: the shell and its sleep (a session of its own)
        let shellProcess = try #require(shell)
        let child = await Self.child(of: shellPID)
        #expect(child.map { ProcessLineage.isSelfOrDescendant($0, of: shellProcess) } == true, "its child counts")

        // Another: it ends and is reaped, and the kernel gives its pid to another program.
        let (handlerPID, held, reaped) = try Self.spawn(["/bin/sleep", "600"], held: true)
        let process = try #require(held)
        #expect(process.isHeld && process.isRunning)
        #expect(ProcessLineage.isSelfOrDescendant(handlerPID, of: process))
        #expect(LaunchedHandler.spawned(process).includes(sender: ":1.7", pid: handlerPID, nameOwner: nil))
        kill(handlerPID, SIGKILL)
        #expect(await waitUntil(timeout: .seconds(120)) { reaped.isSet } != nil, "the handler was never reaped")
        #expect(!process.isRunning)
        let taken = try Self.sleeper(asPID: handlerPID)
        let impostor = try #require(Int32(taken), "could not have pid \(handlerPID) again (clone3 set_tid needs root): \(taken)")
        defer { kill(impostor, SIGKILL) }

        // By pid alone (the old rule) the impostor was the handler…
        #expect(ProcessLineage.isSelfOrDescendant(impostor, of: handlerPID))
        // …by the pidfd it is not, nor is its connection.
        #expect(!ProcessLineage.isSelfOrDescendant(impostor, of: process))
        #expect(!LaunchedHandler.spawned(process).includes(sender: ":1.9", pid: impostor, nameOwner: nil))
        #expect(!LaunchedHandler.activated(owner: ":1.7", process: process).includes(sender: ":1.9", pid: impostor, nameOwner: nil))
        // The activated app's own connection still is (its unique name is never reused).
        #expect(LaunchedHandler.activated(owner: ":1.7", process: process).includes(sender: ":1.7", pid: impostor, nameOwner: nil))
        // A process held only after it had ended is never running, whoever has its pid now.
        #expect(!HandlerProcess(pid: handlerPID + 100_000_000).isRunning)
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
        routes.started(group, handler: .spawned(process))
        let isHandler = Self.isHandler
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

    /// Whether the connection of process `pid` is the handler (its sender name does not matter here).
    static let isHandler: @Sendable (Int32) -> @Sendable (LaunchedHandler?) async -> Bool = { p in { $0?.includes(sender: ":1.5", pid: p, nameOwner: nil) ?? false } }

    /// The handler runs from its exec on, and the service notes its process only after the spawn
    /// returns: a callback it opens at once can come first (seen once beside a parallel build, as
    /// XCallbackTests' callback that never came back). The claim waits for the start, then the
    /// handler's check decides; a claim for a request that never starts ends when its routes go.
    @Test func aCallbackOpenedBeforeItsHandlerIsNotedWaitsForTheStart() async throws {
        let routes = CallbackRoutes()
        let group = try #require(routes.pin(["calcb://early"], to: "org.example.Caller.desktop", lifetime: .seconds(3600)))
        let (pid, held, _) = try Self.spawn(["/bin/sleep", "600"], held: true)
        defer { kill(pid, SIGKILL) }
        let process = try #require(held)
        let claim = Task { await routes.claim("calcb://early?result=ok", isHandler: Self.isHandler(pid)) }
        // The claim is under way before the start is noted (a pause only makes that likely: the
        // outcome is the same either way).
        try await Task.sleep(for: .milliseconds(300))
        routes.started(group, handler: .spawned(process))
        #expect(await claim.value == .pinned(entryID: "org.example.Caller.desktop"))
        #expect(routes.count == 0)

        let never = try #require(routes.pin(["calcb://never"], to: "org.example.Caller.desktop", lifetime: .seconds(3600)))
        let waiting = Task { await routes.claim("calcb://never", isHandler: Self.isHandler(pid)) }
        try await Task.sleep(for: .milliseconds(300))
        routes.drop(never)
        #expect(await waiting.value == .refused)
        #expect(await routes.claim("calcb://never", isHandler: Self.isHandler(pid)) == .none)
    }

    /// A route whose request is neither started nor dropped (no path of the service leaves one so,
    /// but a claim must not depend on it): a claim waits at most until the route expires, then is
    /// refused, its handler unknown. The pin and the claim run in one task, one after the other,
    /// so the claim finds the route alive however late the task runs; the outcome is awaited with
    /// a ceiling far past the route's 2 s (an event, not a clock race).
    @Test func aClaimWaitsNoLongerThanItsRouteLives() async throws {
        let routes = CallbackRoutes()
        let outcome = Mutex<(claim: CallbackRoutes.Claim, askedAbout: [LaunchedHandler?])?>(nil)
        Task {
            routes.pin(["calcb://stale"], to: "org.example.Caller.desktop", lifetime: .seconds(2))
            let asked = Mutex<[LaunchedHandler?]>([])
            let claimed = await routes.claim("calcb://stale?result=x", isHandler: { h in asked.withLock { $0.append(h) }; return true })
            outcome.withLock { $0 = (claimed, asked.withLock { $0 }) }
        }
        for _ in 0..<3000 where outcome.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(100)) }
        let result = try #require(outcome.withLock { $0 }, "the claim still waited 300 s after a route of 2 s was pinned")
        #expect(result.claim == .refused)
        #expect(result.askedAbout.count == 1 && result.askedAbout.first! == nil, "the claim asked about \(result.askedAbout)")
        #expect(routes.count == 0)
    }
}
