import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// A clock the test moves by hand: the limits are checked without ever racing real time.
final class ManualClock: Sendable {
    private let seconds = Mutex(1000.0)
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
    var read: @Sendable () -> Double { { [self] in seconds.withLock { $0 } } }
}

/// The limits of issue 12, item 4, without a bus: the shared bucket of unidentified callers,
/// buckets that expire under a hard cap, launches in flight per caller, and `SetDefaultHandler`
/// limited per caller and written off the shared task threads.
@Suite struct LimitsTests {
    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        let clock = ManualClock()
        func broker(config: String) -> Broker {
            tree.write(tree.configHome + "/schemebridge/config", config)
            let registry = tree.registry()
            let store = PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories))
            return Broker(registry: registry, policy: store, ownDesktopIDs: [], clock: clock.read)
        }
    }

    func admit(_ broker: Broker, _ url: String, app: String?, bus: String) throws(OpenFailure) -> Admission {
        try broker.admit(OpenRequest(url: url, caller: Caller(busName: bus, id: app.flatMap(CallerID.init))),
                         searchPath: broker.registry.directories.executableSearchPath, sessionScale: 1, splashAvailable: false)
    }

    /// The attack: 300 connections, each gone before it could be identified, each one launch.
    /// Before the fix each connection had a bucket of its own, and all 300 launched.
    @Test func unidentifiedCallersShareOneStrictBucket() throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        let broker = s.broker(config: "[Policy]\nUnidentifiedLaunchBurst=5\nUnidentifiedLaunchRate=1\n")
        var launched = 0
        for i in 0..<300 where (try? admit(broker, "todolist:\(i)", app: nil, bus: ":1.\(1000 + i)")) != nil { launched += 1 }
        #expect(launched == 5, "300 fresh unidentified connections launched \(launched); the shared burst is 5")
        // Identified callers keep their own buckets meanwhile.
        #expect(throws: Never.self) { try admit(broker, "todolist:x", app: "org.example.A", bus: ":1.5") }
        // Tokens come back at the shared rate.
        s.clock.advance(1)
        #expect(throws: Never.self) { try admit(broker, "todolist:y", app: nil, bus: ":1.9999") }
        #expect((try? admit(broker, "todolist:z", app: nil, bus: ":1.10000")) == nil)
    }

    /// Buckets of callers that have filled up again are dropped, and there are never more than
    /// the cap: a flood of new names costs bounded memory and time. Before the fix every name
    /// kept a bucket (100,000 names: 100,000 buckets, each lookup filtering all of them).
    @Test func bucketsExpireUnderAHardCap() {
        let clock = ManualClock()
        let limiter = LaunchRateLimiter(rate: 50, burst: 100, clock: clock.read)
        let limits = LaunchRateLimiter.Limits(rate: 50, burst: 100)
        let strict = LaunchRateLimiter.Limits(rate: 0.001, burst: 2)
        // A victim spends its whole burst first.
        for _ in 0..<100 { _ = limiter.allow("victim", limits, shared: strict) }
        #expect(!limiter.allow("victim", limits, shared: strict))
        var admitted = 0
        for i in 0..<100_000 where limiter.allow(CallerID("name-\(i)")!, limits, shared: strict) { admitted += 1 }
        print("limits: buckets after 100000 unique names: \(limiter.bucketCount) (cap \(LaunchRateLimiter.maximumBuckets))")
        #expect(limiter.bucketCount <= LaunchRateLimiter.maximumBuckets)
        #expect(admitted < LaunchRateLimiter.maximumBuckets + 2, "names past the cap share the strict bucket: \(admitted) admitted")
        #expect(!limiter.allow("victim", limits, shared: strict), "crowding out buckets must not refill the victim's")
        // Once full again (burst / rate = 2 s), every bucket goes.
        clock.advance(2.5)
        #expect(limiter.allow("late", limits, shared: strict))
        #expect(limiter.bucketCount == 2, "the new caller's, and the shared bucket still refilling at its strict rate")
    }

    /// One caller holding slow launches cannot lock everyone out: it has its own cap.
    @Test func launchesInFlightAreCappedPerCaller() throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        let broker = s.broker(config: "[Policy]\nMaxConcurrentLaunches=4\nMaxLaunchesPerCaller=2\n")
        var held: [Admission] = []
        for i in 0..<2 { held.append(try admit(broker, "todolist:\(i)", app: "org.example.Greedy", bus: ":1.1")) }
        do {
            held.append(try admit(broker, "todolist:3", app: "org.example.Greedy", bus: ":1.2"))
            Issue.record("a third launch in flight was admitted for one caller")
        } catch {
            #expect(error.kind == .rateLimited && error.message.contains("MaxLaunchesPerCaller"), "\(error)")
        }
        #expect(throws: Never.self) { held.append(try admit(broker, "todolist:b", app: "org.example.Other", bus: ":1.3")) }
        // Unidentified callers count as one caller.
        held.append(try admit(broker, "todolist:u1", app: nil, bus: ":1.4"))
        #expect(broker.launchesInFlight == 4)
        #expect((try? admit(broker, "todolist:c", app: "org.example.Third", bus: ":1.6")) == nil, "the global cap still holds")
        held.removeAll()
        #expect(broker.launchesInFlight == 0)
        for i in 0..<2 { held.append(try admit(broker, "todolist:\(i)", app: nil, bus: ":1.\(70 + i)")) }
        #expect((try? admit(broker, "todolist:u3", app: nil, bus: ":1.80")) == nil, "unidentified callers share one per-caller cap")
    }

    @Test func setDefaultIsLimitedPerCaller() async throws {
        let s = Setup()
        s.tree.entry(1, "todo.desktop", schemes: ["todolist"])
        let broker = s.broker(config: "[Policy]\nMaxSetDefaultRate=1\nSetDefaultBurst=3\n")
        let flooder = Caller(busName: ":1.1", id: "org.example.Flood")
        var outcomes: [OpenFailure.Kind?] = []
        for _ in 0..<6 {
            do { try await broker.setDefault(scheme: "todolist", desktopID: "todo.desktop", caller: flooder); outcomes.append(nil) } catch {
                outcomes.append(error.kind)
            }
        }
        #expect(outcomes == [nil, nil, nil, .rateLimited, .rateLimited, .rateLimited])
        try await broker.setDefault(scheme: "todolist", desktopID: "todo.desktop", caller: Caller(busName: ":1.2", id: "org.example.Other"))
        s.clock.advance(1)
        try await broker.setDefault(scheme: "todolist", desktopID: "todo.desktop", caller: flooder)
        #expect(s.tree.read(s.tree.configHome + "/mimeapps.list")?.contains("x-scheme-handler/todolist=todo.desktop") == true)
    }

    /// Writes wait on the writer's own thread: with more blocked writes queued than there are
    /// shared task threads, tasks still run; identical requests queued together run once.
    @Test func writesRunOffTheSharedThreads() async {
        let writer = SerialWriter<Int>(name: "test-writer")
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let first = Task { await writer.run(key: "block") { started.signal(); release.wait(); return 1 } }
        started.wait()
        let flood = (0..<200).map { i in Task { await writer.run(key: "same") { i } } }
        // The cooperative pool has as many threads as cores; 200 waiting writes hold none.
        let free = await Task.detached { 42 }.value
        #expect(free == 42)
        release.signal()
        #expect(await first.value == 1)
        var outputs = Set<Int>()
        for t in flood { outputs.insert(await t.value) }
        #expect(writer.jobsRun < 200, "identical queued requests join: \(writer.jobsRun) jobs for 201 requests")
        #expect(outputs.count == writer.jobsRun - 1)
    }
}
