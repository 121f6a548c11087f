import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Launch images through the service without an X display: `LaunchImageForURL`, the
/// `launch-image`/`scale` options and results, `URLHandled` details, and the notification
/// fallback (a python3-dbus notification server that records `Notify`).
@Suite struct LaunchImageServiceTests {
    static func fixture() throws -> ServiceFixture {
        try ServiceFixture(extraEnvironment: ["DISPLAY": "", "WAYLAND_DISPLAY": "", "GDK_SCALE": "", "QT_SCALE_FACTOR": ""])
    }

    /// A notification server on `f`'s bus (`Clients/LaunchImage/notifications.py`) that logs each
    /// `Notify` to `log` as a JSON line; returned once it owns its name.
    static func notificationServer(_ f: ServiceFixture, log: URL) async throws -> ChildProcess {
        let server = try Tools.spawn(Clients.command("LaunchImage/notifications", [f.bus.address, log.path]))
        let owned = await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"])
            return r?.stdout.contains("boolean true") == true
        }
        if !owned { server.signal(SIGTERM) }
        try #require(owned, "the notification server never started")
        return server
    }

    func images(_ f: ServiceFixture, _ names: [String]) throws -> String {
        let dir = f.dataHome.appendingPathComponent("launch-images/org.example.Todo")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for n in names { try Data([0x89, 0x50, 0x4E, 0x47]).write(to: dir.appendingPathComponent(n)) }
        return dir.path
    }

    @Test func launchImageForURLFollowsTheNamingConvention() async throws {
        let f = try Self.fixture()
        defer { f.stop() }
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;x-scheme-handler/notes;")
        let none = try await f.dbusSend("LaunchImageForURL", "string:todolist://x")
        #expect(none.stdout.contains("string \"\""), "\(none.stdout)\(none.stderr)")
        let dir = try images(f, ["Default-todolist.png", "Default-todolist@2x.png", "Default.png"])
        let specific = try await f.dbusSend("LaunchImageForURL", "string:TodoList://x")
        #expect(specific.stdout.contains("string \"\(dir)/Default-todolist.png\""), "\(specific.stdout)\(specific.stderr)")
        let generic = try await f.dbusSend("LaunchImageForURL", "string:notes://x")
        #expect(generic.stdout.contains("string \"\(dir)/Default.png\""), "\(generic.stdout)")
        let noHandler = try await f.dbusSend("LaunchImageForURL", "string:nothing://x")
        #expect(noHandler.stdout.contains("string \"\""), "\(noHandler.stdout)\(noHandler.stderr)")
        let invalid = try await f.dbusSend("LaunchImageForURL", "string:not a url")
        #expect(invalid.stderr.contains(ContractError.invalidURL.description), "\(invalid.stderr)")
        let cli = try await Tools.run([try Built.executable("schemebridge"), "launch-image", "todolist://x"],
                                      environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
        #expect(cli.status == 0 && cli.stdout == "\(dir)/Default-todolist.png\n", "\(cli.stdout)\(cli.stderr)")
    }

    @Test func sessionScaleChoosesTheAt2xFile() async throws {
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": "", "GDK_SCALE": "2"])
        defer { f.stop() }
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let dir = try images(f, ["Default-todolist.png", "Default-todolist@2x.png"])
        let r = try await f.dbusSend("LaunchImageForURL", "string:todolist://x")
        #expect(r.stdout.contains("string \"\(dir)/Default-todolist@2x.png\""), "\(r.stdout)\(r.stderr)")
    }

    @Test func withoutDisplayOrNotificationServerNothingIsShownAndOpeningWorks() async throws {
        let f = try Self.fixture()
        defer { f.stop() }
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        _ = try images(f, ["Default-todolist.png"])
        let r = try await f.gdbus("OpenURLWithOptions", "todolist://plain", "{}")
        #expect(r.status == 0 && r.stdout.contains("'launch-image': <''>"), "\(r.stdout)\(r.stderr)")
        #expect(await f.recordedArgv("todo") == ["todolist://plain"])
        let env = f.recordedEnv("todo")
        #expect(env.contains("startup=\n"), "no splash, so no startup id is invented: \(env)")
    }

    @Test func notificationCarriesTheImageWhenThereIsNoDisplay() async throws {
        let f = try Self.fixture()
        defer { f.stop() }
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let dir = try images(f, ["Default-todolist.png", "Default-todolist@3x.png"])
        let log = f.root.appendingPathComponent("notify.log")
        let server = try await Self.notificationServer(f, log: log)
        defer { server.signal(SIGTERM) }
        let r = try await f.gdbus("OpenURLWithOptions", "todolist://n", "{'scale': <uint32 3>}")
        #expect(r.status == 0 && r.stdout.contains("'launch-image': <'\(dir)/Default-todolist@3x.png'>"), "\(r.stdout)\(r.stderr)")
        #expect(await Tools.eventually { (try? String(contentsOf: log, encoding: .utf8))?.isEmpty == false })
        let line = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(line.contains("\"app\": \"SchemeBridge\"") && line.contains("\"summary\": \"Opening Todo\"")
                && line.contains("\"image\": \"\(dir)/Default-todolist@3x.png\""), "\(line)")
        // Turned off per call: no image, no notification. A marker call after it (scale 1, so
        // the plain image) is notified; by then an unwanted one for the "off" call would be in
        // the log too (the service sends them in order).
        let off = try await f.gdbus("OpenURLWithOptions", "todolist://off", "{'launch-image': <false>}")
        #expect(off.status == 0 && off.stdout.contains("'launch-image': <''>"), "\(off.stdout)\(off.stderr)")
        let marker = try await f.gdbus("OpenURLWithOptions", "todolist://marker", "{'scale': <uint32 1>}")
        #expect(marker.status == 0 && marker.stdout.contains("'launch-image': <'\(dir)/Default-todolist.png'>"), "\(marker.stdout)\(marker.stderr)")
        let lines = { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(await Tools.eventually { lines().contains { $0.contains("\"\(dir)/Default-todolist.png\"") } }, "\(lines())")
        #expect(lines().count == 2, "\(lines())")
        let badScale = try await f.gdbus("OpenURLWithOptions", "todolist://x", "{'scale': <'big'>}")
        #expect(badScale.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs") && badScale.stderr.contains("scale"), "\(badScale.stderr)")
    }
}
