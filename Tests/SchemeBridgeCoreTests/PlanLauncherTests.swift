import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The one launcher (``PlanLauncher``) over a port that records the bus: an activatable plan is
/// one `org.freedesktop.Application` call with the context's platform data, a failed call is the
/// plan's `LaunchFailed`, the handler's owner is watched, and a spawned plan runs its process.
@Suite struct PlanLauncherTests {
    typealias Setup = HandlerStarterTests.Setup
    typealias Watcher = HandlerStarterTests.Watcher

    /// `org.example.App` is owned by `:1.42`, pid 4242; its calls answer `failure` when set.
    final class Port: LaunchPort {
        let calls = Mutex<[(call: ApplicationCall, busName: String, objectPath: String, uris: [String], platform: [String: String], urisThere: Bool, annotation: String?)]>([])
        let failure: BusCallFailure?
        let notified = Mutex<[String]>([])
        init(failure: BusCallFailure? = nil) { self.failure = failure }

        func callApplication(_ call: ApplicationCall, busName: String, objectPath: String, uris: [String], platformData: [String: String],
                             urisInPlatformData: Bool, annotation: String?) async throws(BusCallFailure) -> String? {
            calls.withLock { $0.append((call, busName, objectPath, uris, platformData, urisInPlatformData, annotation)) }
            if let failure { throw failure }
            return busName == "org.example.App" ? ":1.42" : nil
        }
        func notify(image: String, entry: DesktopEntry) async -> Bool { notified.withLock { $0.append(image) }; return true }
        func startService(_ busName: String) async {}
        func owner(of busName: String) async -> String? {
            pidsAsked.withLock { $0.append("owner of \(busName)") }
            return busName == "org.example.App" ? ":1.42" : nil
        }
        /// What the bus was asked after the call: pids, and owners ("owner of NAME").
        let pidsAsked = Mutex<[String]>([])
        func processID(of busName: String) async -> UInt32? {
            pidsAsked.withLock { $0.append(busName) }
            return busName == ":1.42" ? 4242 : nil
        }
    }

    func launcher(_ s: Setup, _ broker: Broker, port: Port, watcher: Watcher, tokens: UsedActivationTokens = UsedActivationTokens()) -> PlanLauncher<Port> {
        PlanLauncher(starter: s.starter(broker), port: port, splash: SplashHelper(environment: [:], log: { _, _ in }), watcher: watcher,
                     usedActivationTokens: tokens)
    }

    @Test func anActivatablePlanIsOneOpenCallAndItsOwnerIsWatched() async throws {
        let s = Setup()
        s.tree.entry(1, "org.example.App.desktop", schemes: ["actx"], extra: "DBusActivatable=true")
        let broker = s.broker()
        var admission = try s.admit(broker, "actx:one")
        admission.context.activationToken = "token-1"
        let (port, watcher, tokens) = (Port(), Watcher(), UsedActivationTokens())
        let started = try await launcher(s, broker, port: port, watcher: watcher, tokens: tokens)
            .start(admission.plan, context: admission.context, admission: admission, request: 9, annotation: "note")
        #expect(started.activated && started.pid == 4242 && started.launchImage == nil)
        let call = try #require(port.calls.withLock { $0.first })
        #expect(call.call == .open && call.busName == "org.example.App" && call.objectPath == "/org/example/App" && call.uris == ["actx:one"])
        #expect(call.platform["activation-token"] == "token-1" && !call.urisThere && call.annotation == "note")
        #expect(watcher.list == ["started 9", "activated 9 :1.42 4242"], "the connection that answered Open is the owner")
        #expect(port.pidsAsked.withLock { $0 } == [":1.42"], "the pid of the connection that answered; its owner not asked")
        #expect(tokens.contains("token-1"), "the handler's window took focus with it")
    }

    @Test func aFailedCallIsThePlansLaunchFailure() async throws {
        let s = Setup()
        s.tree.entry(1, "org.example.App.desktop", schemes: ["actx"], extra: "DBusActivatable=true")
        let broker = s.broker()
        let admission = try s.admit(broker, "actx:one")
        let port = Port(failure: BusCallFailure(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "not here"))
        do {
            _ = try await launcher(s, broker, port: port, watcher: Watcher()).start(admission.plan, context: admission.context, admission: admission, request: nil)
            Issue.record("the launch did not fail")
        } catch {
            #expect(error == admission.plan.activationFailure("org.freedesktop.DBus.Error.ServiceUnknown", "not here"))
            #expect(error.kind == .launchFailed && error.message.contains("not here"))
        }
    }

    @Test func aSpawnedPlanRunsItsProcessAndTheFirstIsWatched() async throws {
        let s = Setup()
        let release = s.tree.root + "/release"
        s.waitingHandler("waitx", status: 0, release: release)
        let broker = s.broker()
        let admission = try s.admit(broker, "waitx:one")
        let (port, watcher) = (Port(), Watcher())
        let started = try await launcher(s, broker, port: port, watcher: watcher).start(admission.plan, context: admission.context, admission: admission, request: 4)
        #expect(!started.activated && started.pid != nil)
        #expect(port.calls.withLock { $0.isEmpty })
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        #expect(await waitUntil(timeout: .seconds(20)) { watcher.list.contains("exited 4 0") } != nil, "\(watcher.list)")
    }
}
