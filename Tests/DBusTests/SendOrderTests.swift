import DBusTestSupport
import Glibc
import Synchronization
import Testing
@testable import DBus

/// The order in which what a connection is asked to send goes out (``Connection``'s "Order"): a
/// step of a task on the loop thread sends at once when nothing asked before it waits, never
/// ahead of what was asked before it; an inline handler's signal still follows its reply.
@Suite struct SendOrderTests {
    /// What a listener got, in order.
    final class Seen: Sendable {
        let ticks = Mutex<[UInt32]>([])
        var count: Int { ticks.withLock { $0.count } }
    }

    /// A flag set on one thread, read on another.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    /// A task's continuation, parked for another task to resume.
    final class Parked: Sendable {
        let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
    }

    /// A connection and a listener of its `Tick` signals on a private bus.
    struct World {
        let bus: PrivateBus
        let connection: Connection
        let listener: Connection
        let seen = Seen()
        let listening: Task<Void, Never>

        init() async throws {
            bus = try PrivateBus()
            connection = try await Connection.connect(address: bus.address)
            listener = try await Connection.connect(address: bus.address)
            let ticks = try await listener.signals(matching: MatchRule(sender: try BusName(connection.uniqueName), interface: TestService.interface, member: "Tick"))
            listening = Task { [seen] in
                for await t in ticks { if case .uint32(let n)? = t.body.first { seen.ticks.withLock { $0.append(n) } } }
            }
        }

        func tick(_ n: UInt32) throws {
            try connection.emit(path: TestService.path, interface: TestService.interface, member: "Tick", [.uint32(n)])
        }

        func stop() {
            listening.cancel()
            listener.close()
            connection.close()
            bus.stop()
        }
    }

    /// Holds the calling thread (the loop thread, in these tests) until `condition` holds or the
    /// ceiling passes; whether it held.
    static func hold(until condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// A signal emitted by a task's step on the loop thread is on the bus before the step goes on:
    /// the listener has it while the step still holds the loop thread (queued for the loop's next
    /// turn, as before, it would not go out until the step ended).
    @Test func aStepOnTheLoopSendsAtOnce() async throws {
        let world = try await World()
        defer { world.stop() }
        let sentDuringTheStep = try await Task(executorPreference: world.connection.loopExecutor) { () throws -> Bool in
            await Task.yield()  // from here, a job the loop runs
            try world.tick(1)
            return Self.hold { world.seen.count == 1 }
        }.value
        #expect(sentDuringTheStep, "the signal went out only after the step")
        #expect(await Tools.eventually { world.seen.count == 1 })
    }

    /// What runs as a reply to a call of ours is handled (``StartedCall/whenEnded(_:)``: a share
    /// answered as its engine took it) sends at once when nothing asked before it waits: a reply
    /// has no reply of its own for the signal to follow (queued for the loop's next turn, as
    /// before, it would not go out until the reply's dispatch ended).
    @Test func aSignalAskedAsAReplyIsHandledGoesOutAtOnce() async throws {
        let world = try await World()
        defer { world.stop() }
        let sentAsHandled = Flag()
        let call = try world.connection.start(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                              interface: "org.freedesktop.DBus", member: "GetId") { _ throws(DBusError) in }
        call.whenEnded { _ in
            try? world.tick(1)
            if Self.hold(until: { world.seen.count == 1 }) { sentAsHandled.set() }  // the loop thread held, in the reply's dispatch
        }
        #expect(await call.outcome() == nil)
        #expect(sentAsHandled.isSet, "the signal went out only after the reply's dispatch")
    }

    /// A step's signal goes out at once even when another task's step waits for the loop thread
    /// behind it: a step queued has asked for nothing yet (it only resumes a task), so nothing asked
    /// before the signal waits.
    @Test func aStepsSendDoesNotWaitForAQueuedStep() async throws {
        let world = try await World()
        defer { world.stop() }
        let parked = Parked()
        let other = Task(executorPreference: world.connection.loopExecutor) {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in parked.continuation.withLock { $0 = c } }
        }
        #expect(await Tools.eventually { parked.continuation.withLock { $0 != nil } })
        let sentDuringTheStep = try await Task(executorPreference: world.connection.loopExecutor) { () throws -> Bool in
            await Task.yield()  // from here, a job the loop runs
            parked.continuation.withLock { $0 }?.resume()  // the other task's step: queued behind this one
            try world.tick(1)
            return Self.hold { world.seen.count == 1 }
        }.value
        await other.value
        #expect(sentDuringTheStep, "the signal waited for a queued step that had asked for nothing")
        #expect(await Tools.eventually { world.seen.count == 1 })
    }

    /// What another thread asked for while a step held the loop thread goes out before what the
    /// step asks for after it: a step's send never overtakes one asked before it.
    @Test func aStepsSendFollowsOneQueuedBeforeIt() async throws {
        let world = try await World()
        defer { world.stop() }
        let queued = Flag()
        try await Task(executorPreference: world.connection.loopExecutor) { () throws in
            await Task.yield()
            Task.detached {
                try? world.tick(1)  // the loop thread is held: queued
                queued.set()
            }
            #expect(Self.hold { queued.isSet })
            try world.tick(2)
        }.value
        #expect(await Tools.eventually { world.seen.count == 2 })
        #expect(world.seen.ticks.withLock { $0 } == [1, 2])
    }

    /// The same when what was asked before is already taken by the loop, in the same turn as the
    /// step (a task's step resumed, then a signal asked for, while the loop thread was held): the
    /// step's signal still follows it.
    @Test func aStepsSendFollowsOneTakenWithIt() async throws {
        let world = try await World()
        defer { world.stop() }
        let (holding, go) = (Flag(), Flag())
        let parked = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let second = Task(executorPreference: world.connection.loopExecutor) { () throws in
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in parked.withLock { $0 = c } }
            try world.tick(2)  // in the turn that took the signal 1 just after this step
        }
        #expect(await Tools.eventually { parked.withLock { $0 != nil } })
        let holder = Task(executorPreference: world.connection.loopExecutor) {
            await Task.yield()
            holding.set()
            #expect(Self.hold { go.isSet })
        }
        #expect(await Tools.eventually { holding.isSet })
        parked.withLock { $0 }?.resume()  // the second task's step: queued, the loop thread being held
        try world.tick(1)  // queued after it
        go.set()
        await holder.value
        try await second.value
        #expect(await Tools.eventually { world.seen.count == 2 })
        #expect(world.seen.ticks.withLock { $0 } == [1, 2])
    }

    /// A signal an inline handler emits goes out after its reply (the handler runs while the loop
    /// dispatches the call: the signal waits for the loop's next turn).
    @Test func anInlineHandlersSignalFollowsItsReply() async throws {
        try await TickMonitor.watching { _, monitor, client in
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "EmitInline", [.uint32(5)])
            #expect(await monitor.replyPrecedesTick(5, client: client) == true, "the reply before the signal: \(monitor.text)")
        }
    }

    /// A method call a handler starts while the loop dispatches its message leaves at once: the
    /// callee has it while the handler still holds the loop thread (queued for the loop's next turn,
    /// as before, it would leave only after the handler returned).
    @Test func aHandlersCallLeavesBeforeTheHandlerReturns() async throws {
        let atOnce = try await Self.forwarding { relay, hold in
            let forwarded = Task.immediate {
                try await relay.call(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                                     member: "Block", [.string("forwarded")])
            }
            let atOnce = Self.hold { hold.tags.contains("forwarded") }  // the loop thread held, in the dispatch
            hold.releaseAll()
            _ = try await forwarded.value
            return atOnce
        }
        #expect(atOnce, "the handler's call left only after the handler returned")
    }

    /// Whether `forward`, run by a relay's `.onLoop` handler of a client's call (given the relay's
    /// connection and the test service's hold), found its `Block` call to the test service there
    /// while it held the loop thread (what it returns).
    static func forwarding(_ forward: @escaping @Sendable (Connection, TestService.Hold) async throws -> Bool) async throws -> Bool {
        let service = try await TestService.start()
        defer { service.stop() }
        let relay = try await Connection.connect(address: service.bus.address)
        defer { relay.close() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let (path, interface): (ObjectPath, InterfaceName) = ("/relay", "org.example.Relay")
        let hold = service.hold
        try relay.export([Interface(interface, methods: [
            Method("Forward", outputs: [Argument("atOnce", "b")], handler: .onLoop { _ in MethodResult([.boolean(try await forward(relay, hold))]) }),
        ])], at: path)
        let reply = try await client.call(destination: try BusName(relay.uniqueName), path: path, interface: interface, member: "Forward", timeout: .seconds(120))
        return reply.first == .boolean(true)
    }
}
