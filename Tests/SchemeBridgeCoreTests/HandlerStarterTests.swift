import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The launching rules (``HandlerStarter``) with real processes: which process a request and the
/// x-callback routes watch, the pasteboard grant a handler holds from start to exit, what loop
/// safety remembers, and the bookkeeping around an activated app.
@Suite struct HandlerStarterTests {
    /// What a request's watcher was told.
    final class Watcher: HandlerWatcher {
        let events = Mutex<[String]>([])
        let handlers = Mutex<[LaunchedHandler]>([])
        func started(_ request: UInt64, handler: LaunchedHandler) {
            handlers.withLock { $0.append(handler) }
            events.withLock { $0.append("started \(request)") }
        }
        func handlerExited(_ request: UInt64, status: Int32) { events.withLock { $0.append("exited \(request) \(status)") } }
        func activated(_ request: UInt64, owner: String?, pid: UInt32?) async {
            events.withLock { $0.append("activated \(request) \(owner ?? "-") \(pid.map(String.init) ?? "-")") }
        }
        var list: [String] { events.withLock { $0 } }
    }

    /// The bus as the activation sees it: `org.example.App`, once running (started, or `running`
    /// from the start), is owned by `:1.42`, pid 4242.
    final class Bus: ActivationBus {
        let starts = Mutex<[String]>([])
        let running: Mutex<Bool>
        init(running: Bool = false) { self.running = Mutex(running) }
        func startService(_ busName: String) async {
            starts.withLock { $0.append(busName) }
            if busName == "org.example.App" { running.withLock { $0 = true } }
        }
        func owner(of busName: String) async -> String? { busName == "org.example.App" && running.withLock({ $0 }) ? ":1.42" : nil }
        func processID(of busName: String) async -> UInt32? { busName == "org.example.App" ? 4242 : nil }
    }

    /// Lines the starter logged.
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
    }

    struct Setup {
        let tree = XDGTree(dataDirCount: 1)
        let store = PasteboardStore(disk: nil)
        let owner = Caller(busName: ":1.5", id: "org.example.Sender", lineage: [5, 1])
        let logged = Log()

        func broker() -> Broker {
            let registry = tree.registry()
            return Broker(registry: registry, policy: PolicyStore(path: PolicyStore.defaultPath(directories: registry.directories)),
                          ownDesktopIDs: ["io.example.Bridge.desktop"])
        }

        func starter(_ broker: Broker) -> HandlerStarter {
            HandlerStarter(baseEnvironment: ["PATH": "/usr/bin:/bin"], callbackRoutes: broker.callbackRoutes, pasteboards: store,
                           log: { [logged] line in logged.lines.withLock { $0.append(line) } })
        }

        /// A handler of `scheme` that stays up until `release` exists, then exits with `status`.
        /// `flatpakApp`: the entry is that Flatpak app's (`X-Flatpak=`, `flatpak run APP`).
        func waitingHandler(_ scheme: String, status: Int32, release: String, flatpakApp: String? = nil) {
            let script = tree.bin + "/" + (flatpakApp == nil ? "wait-\(scheme)" : "flatpak")
            // Released by the file, or when the tree goes (the test's end removes it, maybe
            // before the loop saw the file: such handlers were left looping after the suite).
            tree.write(script, "#!/bin/sh\nwhile [ ! -e \(release) ] && [ -d \(tree.root) ]; do sleep 0.05; done\nexit \(status)\n")
            chmod(script, 0o755)
            let exec = flatpakApp.map { "\(script) run \($0) %u" } ?? "\(script) %u"
            tree.entry(1, "\(scheme).desktop", schemes: [scheme], exec: exec, extra: flatpakApp.map { "X-Flatpak=" + $0 } ?? "")
        }

        func admit(_ broker: Broker, _ url: String) throws -> Admission {
            try broker.admit(OpenRequest(url: url, caller: Caller(busName: ":1.7", pid: 42, id: "org.example.Caller")),
                             searchPath: broker.registry.directories.executableSearchPath, sessionScale: 1, splashAvailable: false)
        }
    }

    @Test func theFirstProcessIsWatchedAndHoldsThePasteboardUntilItExits() async throws {
        let s = Setup()
        let release = s.tree.root + "/release"
        s.waitingHandler("waitx", status: 3, release: release)
        let broker = s.broker()
        let starter = s.starter(broker)
        let board = try s.store.create(name: "", persistent: false, expiresIn: nil, caller: s.owner)
        let watcher = Watcher()

        let pids = try starter.spawn(try s.admit(broker, "waitx:one"), request: 7, pasteboard: board.id, watcher: watcher)
        #expect(pids.count == 1)
        let pid = try #require(pids.first)
        #expect(watcher.list == ["started 7"])
        guard case .spawned(let process)? = watcher.handlers.withLock({ $0.first }) else { Issue.record("not a spawned handler"); return }
        #expect(process.pid == pid && process.isHeld, "held by a pidfd before it could be reaped")
        let child = Caller(busName: ":1.9", id: nil, lineage: [pid, 1])
        #expect(try s.store.board(board.id, caller: child).1 == .reader, "the started handler may read the pasteboard")
        #expect(starter.recentLaunches.launches(of: "waitx:one").map(\.pid) == [pid], "loop safety knows the launch")

        _ = FileManager.default.createFile(atPath: release, contents: nil)
        #expect(await waitUntil(timeout: .seconds(120)) { watcher.list.contains("exited 7 3") } != nil, "\(watcher.list)")
        #expect(await waitUntil(timeout: .seconds(120)) { (try? s.store.board(board.id, caller: child)) == nil } != nil,
                "the grant goes with the process")
        #expect(s.logged.lines.withLock { $0 }.contains { $0.contains("exited with status 3") })
    }

    @Test func aShareOrAPickIsNotRememberedForLoopSafety() async throws {
        let s = Setup()
        let release = s.tree.root + "/release"
        s.waitingHandler("sharex", status: 0, release: release, flatpakApp: "org.example.Sharex")
        let broker = s.broker()
        let starter = s.starter(broker)
        let watcher = Watcher()
        let admission = try s.admit(broker, "sharex:one")
        defer { _ = FileManager.default.createFile(atPath: release, contents: nil) }

        for purpose in [LaunchPurpose.share, .pick] {
            _ = try starter.spawn(admission, purpose: purpose, request: 1, pasteboard: nil, watcher: watcher)
        }
        #expect(starter.recentLaunches.launches(of: "sharex:one").isEmpty)
        let handlers = watcher.handlers.withLock { $0 }
        #expect(handlers.count == 2)
        for case .spawned(let process) in handlers { #expect(process.sandboxAppID == nil) }
        _ = try starter.spawn(admission, request: 2, pasteboard: nil, watcher: watcher)
        guard case .spawned(let opened)? = watcher.handlers.withLock({ $0.last }) else { Issue.record("not spawned"); return }
        #expect(opened.sandboxAppID?.text == "org.example.Sharex", "an open's Flatpak handler may answer through its proxy")
    }

    @Test func aCommandThatCannotStartIsLaunchFailedNamingTheApp() throws {
        let s = Setup()
        s.tree.entry(1, "gone.desktop", schemes: ["gonex"], exec: "/nonexistent/handler %u")
        let broker = s.broker()
        let watcher = Watcher()
        let admission = try s.admit(broker, "gonex:x")
        do throws(OpenFailure) {
            _ = try s.starter(broker).spawn(admission, request: 3, pasteboard: nil, watcher: watcher)
            Issue.record("a missing program started")
        } catch {
            #expect(error.kind == .launchFailed && error.message.contains("Test App (gone.desktop)"), "\(error.message)")
        }
        #expect(watcher.list.isEmpty)
    }

    @Test func anActivatedAppIsStartedFirstOnlyForAPasteboardAndThenWatchedByItsOwner() async throws {
        let s = Setup()
        s.tree.entry(1, "org.example.App.desktop", schemes: ["actx"], extra: "DBusActivatable=true")
        let broker = s.broker()
        let starter = s.starter(broker)
        let board = try s.store.create(name: "", persistent: false, expiresIn: nil, caller: s.owner)
        let admission = try s.admit(broker, "actx:one")
        guard case .activate(let busName, _) = admission.plan.action else { Issue.record("not activatable"); return }
        let (watcher, bus) = (Watcher(), Bus())

        await starter.activating(admission, busName: busName, request: 9, pasteboard: nil, watcher: watcher, bus: bus)
        #expect(bus.starts.withLock { $0 }.isEmpty, "without a pasteboard the Open call starts it")
        await starter.activating(admission, busName: busName, request: 9, pasteboard: board.id, watcher: watcher, bus: bus)
        #expect(bus.starts.withLock { $0 } == ["org.example.App"])
        let app = Caller(busName: ":1.42", id: nil, lineage: [])
        #expect(try s.store.board(board.id, caller: app).1 == .reader, "its owner's connection may read inside its Open")
        let other = try s.store.create(name: "", persistent: false, expiresIn: nil, caller: s.owner)
        await starter.activating(admission, busName: busName, request: 9, pasteboard: other.id, watcher: watcher, bus: bus)
        #expect(bus.starts.withLock { $0 } == ["org.example.App"], "an app that runs is not started again")
        #expect(try s.store.board(other.id, caller: app).1 == .reader, "its owner's connection granted all the same")
        #expect(watcher.handlers.withLock { $0.first } == .activating(busName: "org.example.App"))

        let pid = await starter.activated(admission, busName: busName, request: 9, watcher: watcher, bus: bus)
        #expect(pid == 4242)
        #expect(watcher.list.last == "activated 9 :1.42 4242", "the name's owner, asked beside its pid")
        #expect(starter.recentLaunches.launches(of: "actx:one").contains { $0.busName == "org.example.App" && $0.pid == 4242 })
    }
}
