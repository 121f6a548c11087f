import Glibc
import Synchronization
import Testing
@testable import DBus

/// A call started now and awaited later (``Connection/start(destination:path:interface:member:timeout:body:)``,
/// a device share's engine call): the outcomes of the awaited typed call, kept until asked, and
/// — started by a handler in the dispatch — on the bus before the handler goes on.
@Suite struct StartedCallTests {
    func start(_ c: Connection, _ member: MemberName, timeout: Duration = .seconds(60),
               _ body: (inout MessageWriter) throws(DBusError) -> Void) throws(DBusError) -> StartedCall {
        try c.start(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: member,
                    timeout: timeout, body: body)
    }

    @Test func outcomesComeWhenAskedAndAreKeptUntilThen() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let joined = try start(client, "Concat") { body throws(DBusError) in try body.append("a"); try body.append("b") }
        let failed = try start(client, "Fail") { body throws(DBusError) in try body.append("refused ✓") }
        // The first Concat's reply is in before this value call's (both inline, answered in order): its outcome is kept.
        _ = try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Concat",
                                  [.string("x"), .string("y")])
        #expect(await joined.outcome() == nil)
        let atOnce = Mutex<DBusError??>(nil)
        joined.whenEnded { outcome in atOnce.withLock { $0 = .some(outcome) } }
        #expect(atOnce.withLock { $0 } == .some(nil), "asked after the outcome came, at once")
        let refusal = await failed.outcome()
        #expect(refusal?.name.rawValue == "org.example.Test.Error.Custom" && refusal?.message.contains("refused ✓") == true, "\(String(describing: refusal))")
        // Block answers only when the test releases it: the 200 ms timeout comes first, while the outcome is awaited.
        let late = try start(client, "Block", timeout: .milliseconds(200)) { body throws(DBusError) in try body.append("late") }
        #expect(await late.outcome()?.name.rawValue == "org.freedesktop.DBus.Error.NoReply")
        service.hold.releaseAll()
        #expect(throws: DBusError.self) { try start(client, "Concat") { body throws(DBusError) in try body.append("a\0") } }
        client.close()
        await client.waitUntilDisconnected()
        #expect(await (try start(client, "Concat") { body throws(DBusError) in try body.append("x"); try body.append("y") }).outcome()?.name == .disconnected)
    }

    /// What `whenEnded` asked runs as the reply comes, before the task awaiting the outcome goes
    /// on; a refusal reaches both.
    @Test func whatRunsWhenTheCallEndsGoesBeforeTheAwaitingTask() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let order = Mutex<[String]>([])
        let held = try start(client, "Block") { body throws(DBusError) in try body.append("held") }
        held.whenEnded { outcome in order.withLock { $0.append("ended: \(outcome == nil)") } }
        let awaiting = Task { let outcome = await held.outcome(); order.withLock { $0.append("awaited: \(outcome == nil)") } }
        let deadline = ContinuousClock.now + .seconds(60)
        while !service.hold.tags.contains("held") && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        service.hold.releaseAll()
        await awaiting.value
        #expect(order.withLock { $0 } == ["ended: true", "awaited: true"])
        let refused = try start(client, "Fail") { body throws(DBusError) in try body.append("no") }
        let told = Mutex<String?>(nil)
        refused.whenEnded { outcome in told.withLock { $0 = outcome?.name.rawValue } }
        #expect(await refused.outcome()?.name.rawValue == "org.example.Test.Error.Custom")
        #expect(told.withLock { $0 } == "org.example.Test.Error.Custom")
    }

    /// Started by a handler on the loop thread in the dispatch, the call has left when `start`
    /// returns: the callee has it while the handler still holds the loop thread.
    @Test func aHandlersStartedCallHasLeftWhenStartReturns() async throws {
        let atOnce = try await SendOrderTests.forwarding { relay, hold in
            let forwarded = try relay.start(destination: TestService.name, path: TestService.path, interface: TestService.interface,
                                            member: "Block") { body throws(DBusError) in try body.append("forwarded") }
            let atOnce = SendOrderTests.hold { hold.tags.contains("forwarded") }  // the loop thread held, in the dispatch
            hold.releaseAll()
            #expect(await forwarded.outcome() == nil)
            return atOnce
        }
        #expect(atOnce, "the started call left only after the handler returned")
    }
}
