import Testing
@testable import DBus

/// A call whose arguments are written straight into it and whose reply is not read
/// (``Connection/call(destination:path:interface:member:timeout:body:)``, the device engine's):
/// the same message as the value call's, and the same outcomes — a return, the error reply's name
/// and message, `NoReply`, `InvalidArgs` for what the values' checks refuse, `Disconnected`.
@Suite struct TypedCallTests {
    func typedCall(_ c: Connection, _ member: MemberName, timeout: Duration = .seconds(60),
                   _ body: (inout MessageWriter) throws(DBusError) -> Void) async throws(DBusError) {
        try await c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: member,
                         timeout: timeout, body: body)
    }

    func error(_ body: () async throws(DBusError) -> Void) async -> DBusError? {
        do { try await body() } catch { return error }
        return nil
    }

    @Test func outcomesAreTheValueCallsOutcomes() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        try await typedCall(client, "Concat") { body throws(DBusError) in
            try body.append("a b")
            try body.append("$c")
        }
        let failed = await error { () throws(DBusError) in try await typedCall(client, "Fail") { body throws(DBusError) in try body.append("install ✓ something") } }
        #expect(failed?.name.rawValue == "org.example.Test.Error.Custom" && failed?.message.contains("install ✓ something") == true, "\(String(describing: failed))")
        let wrongType = await error { () throws(DBusError) in try await typedCall(client, "Concat") { body throws(DBusError) in try body.append(UInt32(1)) } }
        #expect(wrongType?.name == .invalidArgs && wrongType?.message.contains("'ss', not 'u'") == true, "\(String(describing: wrongType))")
        let nul = await error { () throws(DBusError) in try await typedCall(client, "Concat") { body throws(DBusError) in try body.append("a\0") } }
        #expect(nul?.name == .invalidArgs)
        // Block replies only when the test releases it: the 200 ms timeout always comes first.
        let late = await error { () throws(DBusError) in
            try await typedCall(client, "Block", timeout: .milliseconds(200)) { body throws(DBusError) in try body.append("timeout") }
        }
        #expect(late?.name.rawValue == "org.freedesktop.DBus.Error.NoReply", "\(String(describing: late))")
        service.hold.releaseAll()
        client.close()
        await client.waitUntilDisconnected()
        let closed = await error { () throws(DBusError) in try await typedCall(client, "Concat") { body throws(DBusError) in try body.append("x"); try body.append("y") } }
        #expect(closed?.name == .disconnected, "\(String(describing: closed))")
    }

    /// Timeouts in libdbus's milliseconds, the same however they alternate (the last ones are kept).
    @Test func timeoutsInMilliseconds() {
        for _ in 0..<3 {
            #expect(Connection.milliseconds(.seconds(20)) == 20_000)
            #expect(Connection.milliseconds(.milliseconds(200)) == 200)
            #expect(Connection.milliseconds(.microseconds(1500)) == 1)
            #expect(Connection.milliseconds(.seconds(-1)) == 0)
            #expect(Connection.milliseconds(.seconds(3_000_000)) == Int32.max)
        }
    }

    /// The call written straight is, byte for byte, the call the values make (``ConnectionCore/startCall``'s body).
    @Test func theWrittenCallIsTheValuesCall() throws {
        for values in [[DBusValue.string("file:///tmp/%C3%A9 x.png")], [.strings(["file:///a", "file:///b"])]] {
            func call() throws -> OutgoingMessage {
                try OutgoingMessage(callTo: "org.kde.kdeconnect", path: "/modules/kdeconnect/devices/abc/share",
                                    interface: "org.kde.kdeconnect.device.share", member: "shareUrl")
            }
            let written = try call()
            var writer = MessageWriter(message: written.handle)
            for v in values {
                if case .string(let s) = v { try writer.append(s) } else { try writer.append(v) }
            }
            let made = try call()
            try Marshal.append(values, to: made.handle)
            #expect(try MessageWriter.wireForm(of: written) == (try MessageWriter.wireForm(of: made)))
        }
    }
}
