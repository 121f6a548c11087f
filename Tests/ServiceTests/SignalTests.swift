import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Signals and D-Bus activation, seen by python3-dbus clients.
@Suite struct SignalTests {
    /// The python3-dbus client `Clients/Signal/watch.py`: subscribes to the contract's signals,
    /// runs `action` (one of the script's, with `arguments`), waits for `count` signals, prints
    /// them as JSON.
    func watch(_ f: ServiceFixture, count: Int, action: String, _ arguments: [String] = []) async throws -> [[String: Any]] {
        let r = try await Tools.run(Clients.command("Signal/watch", [f.bus.address, String(count), action] + arguments),
                                    environment: Clients.serviceNames, timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stderr)")
        let data = Data(r.stdout.utf8)
        return (try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
    }

    /// The caller hears of its own opens twice: the broadcast (its URL without the query, as
    /// every listener hears it) and a copy sent to it alone with the full URL.
    @Test func urlHandledAndURLFailedAreEmitted() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let signals = try await watch(f, count: 3, action: "open-handled-and-failed")
        let broadcast = signals.first { $0["member"] as? String == "URLHandled" && $0["to"] as? String == "" }?["args"] as? [Any] ?? []
        #expect(broadcast.first as? String == "todolist://add", "\(signals)")
        let handled = signals.first { $0["member"] as? String == "URLHandled" && $0["to"] as? String != "" }
        let args = handled?["args"] as? [Any] ?? []
        #expect(args.count == 4, "\(signals)")
        if args.count == 4 {
            #expect(args[0] as? String == "todolist://add?task=milk")
            #expect(args[1] as? String == "todolist")
            #expect(args[2] as? String == "todo.desktop")
            let details = args[3] as? [String: Any] ?? [:]
            #expect((details["source"] as? String)?.contains("python") == true, "\(details)")
            #expect((details["pid"] as? Int ?? 0) > 0)
            #expect(details["method"] as? String == "OpenURL")
        }
        let failed = signals.first { $0["member"] as? String == "URLFailed" }?["args"] as? [Any] ?? []
        #expect(failed.first as? String == "nothing://x", "\(signals)")
        #expect(failed.dropFirst().first as? String == ContractError.noHandler.description)
    }

    /// A program of the session (the stranger) and the caller listen while the caller opens a URL
    /// with userinfo, query and fragment, and one that fails; a new entry's HandlersChanged, sent
    /// after both, ends the watch (each connection gets the service's signals in order). Returns
    /// what each one heard of URLHandled/URLFailed: member, URL, and whether it was sent to it alone.
    func strangerAndCaller(_ f: ServiceFixture) async throws -> (stranger: [(String, String, Bool)], caller: [(String, String, Bool)]) {
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let entry = f.applications.appendingPathComponent("marker.desktop").path
        let r = try await Tools.run(Clients.command("Signal/stranger-and-caller", [f.bus.address, entry]), environment: Clients.serviceNames, timeout: .seconds(180))
        #expect(r.status == 0, "\(r.stderr)")
        let heard = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: [[Any]]]) ?? [:]
        func list(_ who: String) -> [(String, String, Bool)] {
            (heard[who] ?? []).compactMap { x in
                guard x.count == 3, let m = x[0] as? String, let u = x[1] as? String, let d = x[2] as? Bool else { return nil }
                return (m, u, d)
            }
        }
        return (list("stranger"), list("caller"))
    }

    /// The caller gets its reply first, then the signals of its open (docs/CONTRACT.md, version 3):
    /// what the bus routed for a successful open and a failed one, in its order — the reply (or
    /// error) to the caller, then the broadcast, then the caller's own copy.
    @Test func theCallerGetsItsReplyBeforeTheSignalsOfItsOpen() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        _ = try await f.dbusSend("CanOpenURL", "string:todolist:warm")  // started: the monitor sees the opens' replies alone
        let log = f.root.appendingPathComponent("order.log")
        let monitor = try Tools.spawn(["dbus-monitor", "--address", f.bus.address, "type='signal',interface='\(ServiceFixture.interface)'",
                                       "type='method_return'", "type='error'"], stdout: log)
        defer { monitor.terminate() }
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(await Tools.eventually { text().contains("member=NameLost") }, "dbus-monitor never started")
        _ = try await f.dbusSend("OpenURL", "string:todolist://add?task=milk")
        _ = try await f.dbusSend("OpenURL", "string:nothing://x?token=1")
        #expect(await Tools.eventually { text().components(separatedBy: "member=URLFailed").count == 3 }, "\(text())")
        // The service's messages, by kind: its unique name is the signals' sender.
        let headers = text().split(separator: "\n").filter { !$0.hasPrefix(" ") }
        let service = try #require(headers.first { $0.contains("member=URLHandled") }?.split(separator: " ").first { $0.hasPrefix("sender=") })
        let kinds = headers.filter { $0.contains(" \(service) ") }.map { line in
            line.hasPrefix("method return") ? "reply" : line.hasPrefix("error") ? "error" : String(line.split(separator: "member=").last ?? "")
        }
        #expect(kinds == ["reply", "URLHandled", "URLHandled", "error", "URLFailed", "URLFailed"], "\(text())")
    }

    static let fullHandled = "todolist://me:pw@host/add?task=SECRET#frag"
    static let fullFailed = "nothing://x?token=SECRET"

    @Test func aStrangerNeverHearsTheQueryFragmentOrUserinfoAndTheCallerGetsTheFullURL() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let (stranger, caller) = try await strangerAndCaller(f)
        #expect(stranger.map(\.0) == ["URLHandled", "URLFailed"], "\(stranger)")
        #expect(stranger.map(\.1) == ["todolist://host/add", "nothing://x"], "\(stranger)")
        #expect(!stranger.contains { $0.1.contains("SECRET") || $0.1.contains("pw") || $0.1.contains("frag") || $0.2 }, "\(stranger)")
        // The caller hears the broadcasts too, and the full URLs sent to it alone.
        #expect(caller.filter { $0.2 }.map(\.1) == [Self.fullHandled, Self.fullFailed], "\(caller)")
        #expect(caller.filter { !$0.2 }.map(\.1) == ["todolist://host/add", "nothing://x"], "\(caller)")
    }

    @Test func broadcastURLsFullTellsEveryoneTheWholeURLOnce() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Privacy]\nBroadcastURLs=full\n")
        let (stranger, caller) = try await strangerAndCaller(f)
        #expect(stranger.map(\.1) == [Self.fullHandled, Self.fullFailed], "\(stranger)")
        #expect(caller.map(\.1) == [Self.fullHandled, Self.fullFailed] && !caller.contains { $0.2 }, "no second copy: \(caller)")
    }

    @Test func broadcastURLsNoneTellsOnlyTheCaller() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Privacy]\nBroadcastURLs=none\n")
        let (stranger, caller) = try await strangerAndCaller(f)
        #expect(stranger.isEmpty, "\(stranger)")
        #expect(caller.map(\.1) == [Self.fullHandled, Self.fullFailed] && caller.allSatisfy { $0.2 }, "\(caller)")
    }

    @Test func newEntryIsLiveAndAnnounced() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let program = try f.recorder("late")
        let entry = f.applications.appendingPathComponent("late.desktop").path
        let signals = try await watch(f, count: 2, action: "add-entry", [entry, program])
        let changed = signals.first { $0["member"] as? String == "HandlersChanged" }?["args"] as? [Any]
        #expect((changed?.first as? [String])?.contains("latescheme") == true, "\(signals)")
        let props = signals.first { $0["member"] as? String == "PropertiesChanged" }?["args"] as? [Any] ?? []
        let schemes = (props.dropFirst().first as? [String: Any])?["Schemes"] as? [String]
        #expect(schemes?.contains("latescheme") == true, "\(signals)")
        let can = try await f.dbusSend("CanOpenURL", "string:latescheme://x")
        #expect(can.stdout.contains("boolean true"))
        let prop = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                        "org.freedesktop.DBus.Properties.Get", "string:\(ServiceFixture.interface)", "string:Schemes"])
        #expect(prop.stdout.contains("\"latescheme\""), "\(prop.stdout)")
    }

    @Test func dbusActivatableHandlerGetsOpen() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Activatable.desktop", "Name=Activatable\nDBusActivatable=true\nExec=/bin/false\nMimeType=x-scheme-handler/act;")
        let record = f.records.appendingPathComponent("open.json").path
        // A fake app that owns its desktop id's bus name and records its Open call.
        let app = try Tools.spawn(Clients.command("Signal/activatable-app", [f.bus.address, record]))
        defer { app.terminate() }
        let client = try await Connection.connect(address: f.bus.address)
        defer { client.close() }
        #expect(await Tools.eventually {
            let r = try? await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner", [.string("org.example.Activatable")])
            return r?.first == .boolean(true)
        })
        let r = try await f.gdbus("OpenURLWithOptions", "act://hello world", "{'activation-token': <'tok-9'>, 'annotation': <'note'>}")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("'handler': <'org.example.Activatable.desktop'>"), "\(r.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any]
        #expect(json?["uris"] as? [String] == ["act://hello world"])
        let platform = json?["platform"] as? [String: String] ?? [:]
        #expect(platform["activation-token"] == "tok-9" && platform["desktop-startup-id"] == "tok-9", "\(platform)")
        #expect(platform["annotation"] == "note", "\(platform)")
        #expect(platform["source"]?.contains("gdbus") == true, "\(platform)")

        app.terminate()
        _ = await app.wait()
        let gone = try await f.dbusSend("OpenURL", "string:act://again")
        #expect(gone.stderr.contains(ContractError.launchFailed.description), "\(gone.stderr)")
    }
}
