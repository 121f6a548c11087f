import Testing
import DBus
import DBusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The layer against a real private dbus-daemon, in-process client and service.
@Suite struct BusIntegrationTests {
    func call(_ c: Connection, _ member: MemberName, _ args: [DBusValue] = [], timeout: Duration = .seconds(60)) async throws -> [DBusValue] {
        try await c.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: member, args, timeout: timeout)
    }

    func expectError(_ name: String, containing text: String = "", _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected error \(name)")
        } catch let e as DBusError {
            #expect(e.name.rawValue == name)
            if !text.isEmpty { #expect(e.message.contains(text), "message was: \(e.message)") }
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func echoKeepsExactTypes() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let values: [DBusValue] = [
            .byte(7), .boolean(true), .int16(-2), .uint16(2), .int32(-3), .uint32(3), .int64(.min), .uint64(.max),
            .double(3.25), .string("quotes ' \" $(x) `y`; & ü"), .objectPath("/a/b"), .signature("a{sv}"),
            .strings([]), .vardict(["pid": .uint32(1), "nested": .vardict([:])]),
            .structure([.string("x"), .array(element: .int32, [])]), .variant(.byte(1)),
        ]
        for v in values {
            let reply = try await call(client, "Echo", [.variant(v)])
            #expect(reply == [.variant(v)])
        }
    }

    /// An `.onLoop` handler runs on the loop thread, and is back there after waiting for
    /// a task on the pool, unless it moves to the pool itself; an `.asyncThen` one runs on the pool.
    @Test func onLoopHandlersStayOnTheLoopThread() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        #expect(try await call(client, "WhereOnLoop") == [.strings(["dbus-loop", "dbus-loop"])])
        for (method, count): (MemberName, Int) in [("WhereAsync", 2), ("WhereOnLoopThenPool", 1)] {
            let pooled = try await call(client, method).first?.arrayElements?.compactMap(\.string) ?? []
            #expect(pooled.count == count && !pooled.contains("dbus-loop"), "\(method): threads \(pooled)")
        }
    }

    @Test func unixFDsTravelOverTheBus() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[1]) }
        let readEnd = UnixFD(owning: fds[0])
        let reply = try await call(client, "Echo", [.variant(.unixFD(readEnd))])
        guard case .variant(.unixFD(let back))? = reply.first else {
            Issue.record("no fd came back: \(reply)")
            return
        }
        #expect(back.rawValue != readEnd.rawValue)
        #expect(write(fds[1], "ok", 2) == 2)
        var buf = [UInt8](repeating: 0, count: 2)
        #expect(read(back.rawValue, &buf, 2) == 2)
        #expect(buf == Array("ok".utf8))
    }

    @Test func inlineHandlerAndErrors() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        #expect(try await call(client, "Concat", [.string("a b"), .string("$c")]) == [.string("a b$c")])
        await expectError("org.example.Test.Error.Custom", containing: "install something") {
            _ = try await call(client, "Fail", [.string("install something")])
        }
        await expectError("org.freedesktop.DBus.Error.Failed") { _ = try await call(client, "Crash") }
        await expectError("org.freedesktop.DBus.Error.Failed", containing: "wrong type") { _ = try await call(client, "BadReply") }
        await expectError("org.freedesktop.DBus.Error.UnknownMethod", containing: "Nope") { _ = try await call(client, "Nope") }
        await expectError("org.freedesktop.DBus.Error.InvalidArgs", containing: "'ss', not 'i'") {
            _ = try await call(client, "Concat", [.int32(1)])
        }
        await expectError("org.freedesktop.DBus.Error.InvalidArgs", containing: "invalid bus name") {
            _ = try await call(client, "CheckName", [.string("not..a..name")])
        }
        await expectError("org.freedesktop.DBus.Error.UnknownInterface") {
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: "org.example.Other", member: "Echo")
        }
        await expectError("org.freedesktop.DBus.Error.UnknownObject", containing: "/nowhere") {
            _ = try await client.call(destination: TestService.name, path: "/nowhere", interface: TestService.interface, member: "Echo")
        }
        // Block replies only when the test releases it: the 200 ms timeout always comes first.
        await expectError("org.freedesktop.DBus.Error.NoReply") {
            _ = try await call(client, "Block", [.string("timeout")], timeout: .milliseconds(200))
        }
        service.hold.releaseAll()
        // Without an interface the method is still found.
        let r = try await client.call(destination: TestService.name, path: TestService.path, interface: nil, member: "Concat", [.string("x"), .string("y")])
        #expect(r == [.string("xy")])
    }

    @Test func hugeArraysAreCounted() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let n = 8 << 20
        let reply = try await call(client, "Count", [.array(element: .byte, [DBusValue](repeating: .byte(1), count: n))], timeout: .seconds(60))
        #expect(reply == [.uint32(UInt32(n))])
    }

    @Test func propertiesAndChangeSignals() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let props: InterfaceName = "org.freedesktop.DBus.Properties"
        let changes = try await client.signals(matching: MatchRule(interface: props, member: "PropertiesChanged", path: TestService.path))
        let all = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "GetAll", [.string(TestService.interface.rawValue)])
        #expect(all.first?.stringDictionary?["Greeting"] == .variant(.string("hello")))
        _ = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "Set",
                                  [.string(TestService.interface.rawValue), .string("Counter"), .variant(.uint32(41))])
        let got = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "Get",
                                        [.string(TestService.interface.rawValue), .string("Counter")])
        #expect(got == [.variant(.uint32(41))])
        var iterator = changes.makeAsyncIterator()
        let signal = await iterator.next()
        #expect(signal?.body.first == .string(TestService.interface.rawValue))
        #expect(signal?.body[1].stringDictionary?["Counter"] == .variant(.uint32(41)))
        await expectError("org.freedesktop.DBus.Error.PropertyReadOnly") {
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "Set",
                                      [.string(TestService.interface.rawValue), .string("Greeting"), .variant(.string("x"))])
        }
        await expectError("org.freedesktop.DBus.Error.InvalidArgs") {
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "Set",
                                      [.string(TestService.interface.rawValue), .string("Counter"), .variant(.string("x"))])
        }
        await expectError("org.freedesktop.DBus.Error.UnknownProperty") {
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "Get",
                                      [.string(TestService.interface.rawValue), .string("Nope")])
        }
        await expectError("org.freedesktop.DBus.Error.UnknownInterface") {
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: props, member: "GetAll", [.string("no.such.Iface")])
        }
    }

    @Test func introspectionComesFromTheDeclaration() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let xml = try await client.call(destination: TestService.name, path: TestService.path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        let text = xml.first?.string ?? ""
        #expect(text.contains(#"<interface name="org.example.Test">"#))
        #expect(text.contains(#"<arg name="value" type="v" direction="in"/>"#))
        #expect(text.contains(#"<signal name="Tick">"#))
        #expect(text.contains(#"<property name="Counter" type="u" access="readwrite"/>"#))
        #expect(text.contains(#"<annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>"#))
        #expect(text == (await service.connection.introspectionXML(for: TestService.path)))
        let parent = try await client.call(destination: TestService.name, path: "/org/example", interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        #expect(parent.first?.string?.contains(#"<node name="Test"/>"#) == true)
        let root = try await client.call(destination: TestService.name, path: "/", interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        #expect(root.first?.string?.contains(#"<node name="org"/>"#) == true)
    }

    @Test func signalsReachSubscribers() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let ticks = try await client.signals(matching: MatchRule(interface: TestService.interface, member: "Tick"))
        _ = try await call(client, "Emit", [.uint32(5)])
        var seen: [UInt32] = []
        for await s in ticks {
            if case .uint32(let n)? = s.body.first { seen.append(n) }
            if seen.count == 5 { break }
        }
        #expect(seen == [0, 1, 2, 3, 4])
    }

    @Test func objectsAreExportedBeforeTheNameAppears() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let watcher = try await Connection.connect(address: bus.address)
        defer { watcher.close() }
        let owners = try await watcher.signals(matching: MatchRule(interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: TestService.name.rawValue))
        let serviceConnection = try await Connection.connect(address: bus.address)
        defer { serviceConnection.close() }
        try serviceConnection.export([Interface(TestService.interface, methods: [
            Method("Concat", inputs: [Argument("a", "s"), Argument("b", "s")], outputs: [Argument("joined", "s")],
                   handler: .inline { call in [.string(call.string(0) + call.string(1))] }),
        ])], at: TestService.path)
        let request = Task { try await serviceConnection.requestName(TestService.name) }
        for await _ in owners { break }
        // The very first call after the name appeared finds the object.
        let reply = try await watcher.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Concat", [.string("a"), .string("b")])
        #expect(reply == [.string("ab")])
        #expect(try await request.value == .primaryOwner)
    }

    @Test func secondOwnerIsRefused() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let other = try await Connection.connect(address: service.bus.address)
        defer { other.close() }
        #expect(try await other.requestName(TestService.name) == .exists)
    }

    @Test func badAddressIsAnError() async {
        do {
            _ = try await Connection.connect(address: "unix:path=/nonexistent/socket")
            Issue.record("connected to nothing")
        } catch {
            #expect(!error.message.isEmpty)
        }
        #expect(Connection.sessionBusAddress(in: [:]) == nil)
        #expect(Connection.sessionBusAddress(in: ["DBUS_STARTER_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
    }
}
