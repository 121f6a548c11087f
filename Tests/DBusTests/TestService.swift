import DBus
import DBusTestSupport
import Synchronization
import Glibc

/// A small service exported by the layer under test, on a private bus.
final class TestService: Sendable {
    static let name: BusName = "org.example.TestService"
    static let path: ObjectPath = "/org/example/Test"
    static let interface: InterfaceName = "org.example.Test"
    /// The python3-dbus clients the tests run (`Tests/DBusTests/Clients`, excluded from the target).
    static let clients = ClientFolder("Tests/DBusTests/Clients")
    /// The service's bus name, object path and interface, as the clients take them (argv).
    static let names = [name.rawValue, path.rawValue, interface.rawValue]

    let bus: PrivateBus
    let connection: Connection
    let counter = Counter()

    final class Counter: Sendable {
        let value = Mutex<UInt32>(0)
    }

    /// Calls of `Block` wait here until the test releases them: a method that is "slow" for
    /// exactly as long as the test needs, never for a fixed time.
    final class Hold: Sendable {
        private let state = Mutex<(waiting: [CheckedContinuation<Void, Never>], tags: [String], released: Bool)>(([], [], false))

        /// How many `Block` calls are waiting now.
        var waiting: Int { state.withLock { $0.waiting.count } }

        /// The tags of the `Block` calls received so far, in order.
        var tags: [String] { state.withLock { $0.tags } }

        func wait(tag: String) async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    s.tags.append(tag)
                    if s.released { return true }
                    s.waiting.append(c)
                    return false
                }
                if now { c.resume() }
            }
        }

        /// Lets every waiting call (and every later one) return.
        func releaseAll() {
            let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.released = true
                defer { s.waiting = [] }
                return s.waiting
            }
            for c in waiting { c.resume() }
        }
    }

    let hold = Hold()

    /// Holds the loop thread (in work left for after a reply) until ``open()`` (at most twice
    /// the tests' ceiling for an event, so that a test waiting for one gives up first).
    final class LoopGate: Sendable {
        private let opened = Mutex(false)
        func open() { opened.withLock { $0 = true } }
        func wait() {
            let deadline = ContinuousClock.now + Tools.eventCeiling * 2
            while !opened.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(10_000) }
        }
    }

    let loopGate = LoopGate()

    struct Crash: Error {}

    private init(bus: PrivateBus, connection: Connection) {
        self.bus = bus
        self.connection = connection
    }

    static func start() async throws -> TestService {
        let bus = try PrivateBus()
        let connection = try await Connection.connect(address: bus.address)
        let service = TestService(bus: bus, connection: connection)
        try connection.export([service.declaration()], at: path)
        try expectPrimaryOwner(try await connection.requestName(name))
        return service
    }

    func declaration() -> Interface {
        let connection = self.connection
        let counter = self.counter
        let hold = self.hold
        return Interface(
            Self.interface,
            methods: [
                Method("Echo", inputs: [Argument("value", "v")], outputs: [Argument("value", "v")],
                       handler: .async { call in [call.arguments[0]] }),
                Method("Concat", inputs: [Argument("a", "s"), Argument("b", "s")], outputs: [Argument("joined", "s")],
                       handler: .inline { call in [.string(call.string(0) + call.string(1))] }),
                Method("Block", inputs: [Argument("tag", "s")], handler: .async { call in
                           await hold.wait(tag: call.string(0))
                           return []
                       }),
                Method("Fail", inputs: [Argument("message", "s")],
                       handler: .async { call in throw DBusError("org.example.Test.Error.Custom", call.string(0)) }),
                Method("Crash", handler: .inline { _ in throw Crash() }),
                Method("BadReply", outputs: [Argument("text", "s")], handler: .inline { _ in [.int32(1)] }),
                Method("CheckName", inputs: [Argument("name", "s")], outputs: [Argument("name", "s")],
                       handler: .inline { call in [.string(try BusName(call.string(0)).rawValue)] }),
                Method("Count", inputs: [Argument("items", "ay")], outputs: [Argument("count", "u")],
                       handler: .inline { call in [.uint32(UInt32(call.arguments[0].arrayElements?.count ?? 0))] }),
                Method("Emit", inputs: [Argument("count", "u")],
                       handler: .async { call in
                           let n: UInt32 = try call.argument(0)
                           for i in 0..<n { try connection.emit(path: Self.path, interface: Self.interface, member: "Tick", [.uint32(i)]) }
                           return []
                       }),
                // The threads its steps ran on: before a wait for another thread, and after it.
                Method("WhereOnLoop", outputs: [Argument("threads", "as")], handler: .onLoop { _ in MethodResult([.strings(await Self.threadsAcrossAWait())]) }),
                Method("WhereOnLoopThenPool", outputs: [Argument("threads", "as")], handler: .onLoop { _ in
                    MethodResult([.strings(await withTaskExecutorPreference(globalConcurrentExecutor) { [Self.currentThreadName()] })])
                }),
                Method("WhereAsync", outputs: [Argument("threads", "as")], handler: .asyncThen { _ in MethodResult([.strings(await Self.threadsAcrossAWait())]) }),
                // Work left for after the reply: a signal emitted with the reply, then the loop thread held.
                Method("EmitAfterReply", inputs: [Argument("n", "u")],
                       handler: .async { [loopGate] call in
                           let n: UInt32 = try call.argument(0)
                           connection.afterReply {
                               try? connection.emitWithReply(path: Self.path, interface: Self.interface, member: "Tick", [.uint32(n)])
                               loopGate.wait()
                           }
                            return []
                        }),
                // A signal from an inline handler, before it returns its reply.
                Method("EmitInline", inputs: [Argument("n", "u")],
                       handler: .inline { call in
                           try connection.emit(path: Self.path, interface: Self.interface, member: "Tick", [.uint32(try call.argument(0))])
                           return []
                       }),
                // A signal for the reply, then a wait for the test: the signal goes with the reply.
                Method("EmitHeld", inputs: [Argument("n", "u")],
                       handler: .async { call in
                           let n: UInt32 = try call.argument(0)
                           try connection.emitWithReply(path: Self.path, interface: Self.interface, member: "Tick", [.uint32(n)])
                           await hold.wait(tag: "held")
                           return []
                       }),
            ],
            signals: [SignalDeclaration("Tick", arguments: [Argument("n", "u")])],
            properties: [
                Property("Counter", type: .uint32, get: { .uint32(counter.value.withLock { $0 }) },
                         set: { v in counter.value.withLock { $0 = UInt32(dbusValue: v) ?? 0 } }),
                Property("Greeting", type: .string, emitsChanged: .const, get: { .string("hello") }),
            ])
    }

    /// The current thread's name, then its name again after waiting for a task on the pool.
    static func threadsAcrossAWait() async -> [String] {
        let before = currentThreadName()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in Task.detached { c.resume() } }
        return [before, currentThreadName()]
    }

    /// The calling thread's name (`/proc/thread-self/comm`).
    static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &bytes, bytes.count)
        return String(decoding: bytes.prefix(max(0, n)).filter { $0 != 0x0A }, as: UTF8.self)
    }

    func stop() {
        hold.releaseAll()
        loopGate.open()
        connection.close()
        bus.stop()
    }
}

/// Fails the test when a name request did not make us the owner.
func expectPrimaryOwner(_ reply: RequestNameReply) throws {
    guard reply == .primaryOwner else { throw ToolError("could not own the name: \(reply)") }
}
