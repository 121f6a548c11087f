import Foundation
import Testing
import DBus
import DBusTestSupport

@Suite struct RobustnessTests {
    /// The service runs in its own process (the bench service built from this package), so
    /// its memory is measured alone, not mixed with other tests running in parallel.
    @Test func tenThousandRoundTripsDoNotLeak() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let service = try Tools.spawn([try Built.executable("schemebridge-bench-service"), bus.address])
        defer { service.terminate() }
        let client = try await Connection.connect(address: bus.address)
        defer { client.close() }
        let name: BusName = "io.github.schemebridge.BenchSwift"
        let up = await Tools.eventually {
            let r = try? await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner", [.string(name.rawValue)])
            return r?.first == .boolean(true)
        }
        #expect(up)
        func batch(_ n: Int) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for i in 0..<(n / 8) {
                            let member: MemberName = i % 2 == 0 ? "Echo" : "EchoAsync"
                            let reply = try await client.call(destination: name, path: "/bench", interface: "io.github.schemebridge.Bench", member: member, [.string("w\(worker)-\(i)")])
                            guard reply == [.string("w\(worker)-\(i)")] else { throw ToolError("wrong reply \(reply)") }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        func serviceRSS() -> Int {
            guard let text = try? String(contentsOfFile: "/proc/\(service.pid)/statm", encoding: .utf8) else { return 0 }
            let fields = text.split(separator: " ")
            return (Int(fields.count > 1 ? fields[1] : "0") ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
        try await batch(2_000)  // warm up allocator and caches
        let before = serviceRSS()
        try await batch(10_000)
        let middle = serviceRSS()
        try await batch(10_000)
        let after = serviceRSS()
        #expect(before > 0)
        let grownKB = (after - middle) / 1024
        // A leak of even 100 bytes a call would show as ~1 MB per 10,000 calls.
        #expect(grownKB < 512, "service RSS: \(before / 1024) KB → \(middle / 1024) KB → \(after / 1024) KB")
    }

    @Test func concurrentEmittersDoNotDeadlock() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let ticks = try await client.signals(matching: MatchRule(interface: TestService.interface, member: "Tick"))
        let emitters = 8, each = 250
        let connection = service.connection
        let counter = Task {
            var n = 0
            for await _ in ticks {
                n += 1
                if n == emitters * each { break }
            }
            return n
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for e in 0..<emitters {
                group.addTask {
                    for i in 0..<each {
                        try connection.emit(path: TestService.path, interface: TestService.interface, member: "Tick", [.uint32(UInt32(e * each + i))])
                        if i % 50 == 0 { await Task.yield() }
                    }
                }
            }
            // Calls keep working while the emitters run.
            group.addTask {
                for _ in 0..<100 {
                    _ = try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Concat", [.string("a"), .string("b")])
                }
            }
            try await group.waitForAll()
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))   // a ceiling for a deadlock, not a time limit
            counter.cancel()
        }
        let received = await counter.value
        watchdog.cancel()
        #expect(received == emitters * each)
    }

    @Test func callerVanishingMidCallDoesNotDisturbTheService() async throws {
        let service = try await TestService.start()
        defer { service.stop() }
        // dbus-send gives up after 50 ms and exits while the handler still waits (until released).
        let r = try await Tools.run(["dbus-send", "--bus=\(service.bus.address)", "--print-reply", "--reply-timeout=50",
                                     "--dest=\(TestService.name)", TestService.path.rawValue, "\(TestService.interface).Block", "string:dbus-send"])
        #expect(r.status != 0)
        // A python caller is killed mid-call: once its call is waiting in the service.
        let py = try Tools.spawn(TestService.clients.command("block", [service.bus.address] + TestService.names))
        #expect(await Tools.eventually { service.hold.tags.contains("python") }, "the python call never reached the service")
        py.signal(SIGKILL)
        _ = await py.wait()
        // Both callers are gone: the service now replies to nobody.
        service.hold.releaseAll()
        let client = try await Connection.connect(address: service.bus.address)
        defer { client.close() }
        let reply = try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Concat", [.string("still"), .string(" here")])
        #expect(reply == [.string("still here")])
    }

    @Test func lostBusEndsTheConnectionCleanly() async throws {
        let service = try await TestService.start()
        let client = try await Connection.connect(address: service.bus.address)
        let pending = Task {
            try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Block", [.string("pending")])
        }
        #expect(await Tools.eventually { service.hold.waiting == 1 })
        service.bus.stop()  // the bus goes away under both connections
        await service.connection.waitUntilDisconnected()
        await client.waitUntilDisconnected()
        #expect(!service.connection.isConnected)
        do {
            _ = try await pending.value
            Issue.record("a call survived the bus")
        } catch let e as DBusError {
            #expect(["org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoReply"].contains(e.name.rawValue), "\(e)")
        }
        do {
            _ = try await client.call(destination: TestService.name, path: TestService.path, interface: TestService.interface, member: "Concat", [.string("a"), .string("b")])
            Issue.record("a call on a closed connection succeeded")
        } catch {
            #expect(error.name == .disconnected)
        }
        #expect(throws: DBusError.self) { try client.emit(path: "/x", interface: "org.example.X", member: "Y") }
    }

    @Test func closingTwiceAndDroppingAreSafe() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        for _ in 0..<20 {
            let c = try await Connection.connect(address: bus.address)
            c.close()
            c.close()
            await c.waitUntilDisconnected()
        }
        _ = try await Connection.connect(address: bus.address)  // dropped without close: deinit closes
    }
}
