import DBus
import DBusTestSupport
import Foundation
import Glibc
import Testing

/// Issues 37 (item 4, "a paired device cannot flood the user") and 38 (item 3, "show what came
/// in"): what a device sends becomes one desktop notification per transfer, naming the device
/// and the files, through a real notification server on the test's private bus
/// (`Clients/Notifications/server.py`, python3-dbus: it records every call and presses a
/// button as a user would, which none of Debian's daemons can be made to do without a screen).
/// The engine is ``FakeKDEConnect`` through its trusted relay (a protected `kdeconnectd`
/// process the service accepts), so 300 files can be announced as fast as the bus takes them.
@Suite(.serialized) struct ReceivedNotificationTests {
    /// The notification server's record: its JSON lines.
    struct Server {
        let process: ChildProcess
        let log: URL
        let address: String

        init(_ fixture: ServiceFixture) async throws {
            log = fixture.records.appendingPathComponent("notifications.jsonl")
            address = fixture.bus.address
            let out = fixture.records.appendingPathComponent("notifications.out").path
            var env = fixture.environment
            env["DBUS_SESSION_BUS_ADDRESS"] = fixture.bus.address
            process = try ChildProcess(Clients.files.command("Notifications/server", [log.path]), environment: env, stdout: out, stderr: out)
            let ready = await Tools.eventually { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("ready") }
            try #require(ready, "the notification server did not start: \((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")")
        }

        /// The calls recorded so far.
        var calls: [[String: Any]] {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        var notified: [[String: Any]] { calls.filter { $0["call"] as? String == "Notify" } }

        /// Presses button `action` of notification `id` (the server emits ActionInvoked, whether
        /// or not it is still shown).
        func invoke(_ id: Int, _ action: String) async throws {
            let r = try await Tools.run(["gdbus", "call", "--address", address, "--dest", "org.freedesktop.Notifications", "--object-path",
                                         "/org/freedesktop/Notifications", "--method", "org.schemebridge.test.NotificationServer.Invoke",
                                         "\(id)", action])
            #expect(r.status == 0, "\(r.stderr)")
        }

        func stop() { kill(process.pid, SIGTERM) }
    }

    /// A service with a counting handler for folders and for files (each launch one line in
    /// `records/<name>.log`), the engine's device "Pixel 7" listed, `config` written.
    static func world(_ config: String) async throws -> (ServiceFixture, FakeKDEConnect, URL) {
        let fixture = try ServiceFixture()
        for (name, type) in [("folders", "inode/directory"), ("files", "application/octet-stream"), ("links", "x-scheme-handler/todo")] {
            let path = fixture.bin.appendingPathComponent(name).path
            try "#!/bin/sh\nprintf '%s source=%s\\n' \"$*\" \"$SCHEMEBRIDGE_SOURCE\" >> '\(fixture.records.path)/\(name).log'\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            try fixture.entry("org.example.\(name).desktop", "Name=\(name)\nExec=\(path) %u\nMimeType=\(type);")
        }
        try fixture.writeConfig(config)
        let downloads = fixture.root.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        #expect(try await fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "Pixel 7", answering: true)
        #expect(await Tools.eventually { (try? await FakeEngineTests.targets(fixture))?.contains("'_phone_'") == true }, "\(fixture.serviceLog.suffix(2000))")
        return (fixture, engine, downloads)
    }

    /// `count` files written to the download folder and announced one after the other.
    static func burst(_ engine: FakeKDEConnect, _ downloads: URL, count: Int, prefix: String = "photo") throws {
        for n in 0..<count {
            let file = downloads.appendingPathComponent("\(prefix)-\(n).bin")
            try Data([0, UInt8(n & 0xFF), 255]).write(to: file)
            try engine.announceReceived("file://" + file.path)
        }
    }

    /// Launches of handler `name` so far.
    static func launches(_ fixture: ServiceFixture, _ name: String) -> [String] {
        ((try? String(contentsOf: fixture.records.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Items the service has dealt with, from its log: in a closed transfer (offered or kept
    /// past its cap), or kept past the device's waiting transfers. Once all are, every
    /// notification and launch for them has been asked for.
    static func accounted(_ log: String) -> Int {
        var total = 0
        for line in log.split(separator: "\n") {
            if let r = line.firstRange(of: " closed: ") {
                let rest = line[r.upperBound...]
                let offered = Int(rest.prefix { $0.isNumber }) ?? 0
                let kept = rest.firstRange(of: "offered, ").map { Int(rest[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
                total += offered + kept
            } else if line.contains("the device has 3 transfers waiting for an answer") {
                total += 1
            }
        }
        return total
    }

    /// Items offered in the transfers the service closed so far.
    static func offered(_ log: String) -> Int {
        log.split(separator: "\n").reduce(0) { total, line in
            guard let r = line.firstRange(of: " closed: ") else { return total }
            return total + (Int(line[r.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }

    /// Transfers the service closed so far.
    static func transfers(_ log: String) -> Int { log.components(separatedBy: " closed: ").count - 1 }

    /// 300 files in a burst: at most 3 notifications (the cap on a device's waiting transfers;
    /// one when the service keeps up), naming "Pixel 7" (never the engine's id) and the files,
    /// nothing opened until "Open"; "Open" opens once (their folder, one launch) however often
    /// the button is reported; "Not from this device" is remembered and nothing of the device is
    /// offered again until `schemebridge devices --allow` takes it off the list.
    @Test func aBurstOf300FilesIsOneNotificationAndOpensOnce() async throws {
        let (fixture, engine, downloads) = try await Self.world("")
        defer { fixture.stop() }
        defer { engine.stop() }
        let server = try await Server(fixture)
        defer { server.stop() }
        try Self.burst(engine, downloads, count: 300)
        #expect(await Tools.eventually { Self.accounted(fixture.serviceLog) >= 300 }, "\(fixture.serviceLog.suffix(4000))")
        // Every closed transfer presented (its "closed" line comes before its Notify).
        #expect(await Tools.eventually { server.notified.count == Self.transfers(fixture.serviceLog) }, "\(fixture.serviceLog.suffix(4000))")
        let notified = server.notified
        #expect((1...3).contains(notified.count), "\(notified.count) notifications for one burst")
        for n in notified {
            let (summary, body) = (n["summary"] as? String ?? "", n["body"] as? String ?? "")
            #expect(summary.hasPrefix("Pixel 7 sent "), "\(summary)")
            #expect(body.contains("photo-") && body.contains(".bin"), "\(body)")
            #expect(!summary.contains("_phone_") && !body.contains("_phone_"))
            #expect(n["actions"] as? [String] == ["open", "Open", "show-in-folder", "Show in folder", "not-from-this-device", "Not from this device",
                                                  "dismiss", "Dismiss"])
            // The hints as the specification types them, each in the dictionary's one variant (a second one made mako refuse the Notify).
            let types = n["hint_types"] as? [String: [Any]] ?? [:]
            #expect(types["urgency"]?.first as? String == "Byte" && types["urgency"]?.last as? Int == 1, "\(types)")
            #expect(types["category"]?.first as? String == "String" && types["category"]?.last as? Int == 1, "\(types)")
        }
        let first = try #require(notified.first)
        #expect(first["summary"] as? String == "Pixel 7 sent 20 files", "\(first)")
        #expect((first["body"] as? String ?? "").hasPrefix("photo-0.bin, photo-1.bin, photo-2.bin, photo-3.bin, photo-4.bin, and 15 more"), "\(first)")
        #expect(Self.launches(fixture, "folders").isEmpty && Self.launches(fixture, "files").isEmpty, "opened before the user said Open")

        // "Open": the 20 files' folder, once — the button reported twice opens nothing more.
        let id = try #require(first["id"] as? Int)
        try await server.invoke(id, "open")
        #expect(await Tools.eventually { Self.launches(fixture, "folders").count == 1 }, "\(fixture.serviceLog.suffix(3000))")
        #expect(Self.launches(fixture, "folders").first?.hasPrefix("file://" + downloads.path) == true, "\(Self.launches(fixture, "folders"))")
        #expect(Self.launches(fixture, "folders").first?.hasSuffix("source=org.kde.kdeconnect.daemon") == true)
        try await server.invoke(id, "open")
        for other in notified.dropFirst() { try await server.invoke(other["id"] as? Int ?? 0, "dismiss") }

        // The next transfer; "Not from this device" on it (answered after the repeated "Open",
        // in the order the server sent them).
        let before = server.notified.count
        try Self.burst(engine, downloads, count: 1, prefix: "later")
        #expect(await Tools.eventually { server.notified.count == before + 1 }, "\(fixture.serviceLog.suffix(3000))")
        let later = try #require(server.notified.last)
        #expect(later["summary"] as? String == "Pixel 7 sent a file" && later["body"] as? String == "later-0.bin", "\(later)")
        try await server.invoke(later["id"] as? Int ?? 0, "not-from-this-device")
        let blocked = fixture.configHome.appendingPathComponent("schemebridge/blocked-devices")
        #expect(await Tools.eventually { ((try? String(contentsOf: blocked, encoding: .utf8)) ?? "").contains("_phone_=Pixel 7\n") })
        try Self.burst(engine, downloads, count: 5, prefix: "blocked")
        #expect(await Tools.eventually { fixture.serviceLog.components(separatedBy: "where KDE Connect put it: not from this device").count - 1 == 5 },
                "\(fixture.serviceLog.suffix(3000))")
        #expect(server.notified.count == before + 1)
        #expect(Self.launches(fixture, "folders").count == 1 && Self.launches(fixture, "files").isEmpty, "opened again")

        // The command line lists the device and takes it off the list: it is offered again.
        var env = fixture.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = fixture.bus.address
        let listed = try await Tools.run([try Built.executable("schemebridge"), "devices"], environment: env)
        #expect(listed.status == 0 && listed.stdout == "_phone_\tPixel 7\n", "\(listed.stdout)\(listed.stderr)")
        let allowed = try await Tools.run([try Built.executable("schemebridge"), "devices", "--allow", "_phone_"], environment: env)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let again = try await Tools.run([try Built.executable("schemebridge"), "devices", "--allow", "_phone_"], environment: env)
        #expect(again.status == 3, "\(again.stderr)")
        try Self.burst(engine, downloads, count: 1, prefix: "allowed")
        #expect(await Tools.eventually { server.notified.last?["body"] as? String == "allowed-0.bin" }, "\(fixture.serviceLog.suffix(3000))")
    }

    /// `OpenReceived=default`: a burst opens once per transfer (the folder, one launch — not
    /// one per file), and its notification says it was opened (no "Open"). A received link
    /// opens as the engine (its identity, its launch quota), as files do.
    @Test func withOpenReceivedDefaultABurstOpensOncePerTransfer() async throws {
        let (fixture, engine, downloads) = try await Self.world("[Devices]\nOpenReceived=default\n")
        defer { fixture.stop() }
        defer { engine.stop() }
        let server = try await Server(fixture)
        defer { server.stop() }
        try Self.burst(engine, downloads, count: 120)
        #expect(await Tools.eventually { Self.accounted(fixture.serviceLog) >= 120 }, "\(fixture.serviceLog.suffix(4000))")
        #expect(await Tools.eventually { server.notified.count == Self.transfers(fixture.serviceLog) }, "\(fixture.serviceLog.suffix(4000))")
        let notified = server.notified
        #expect((1...3).contains(notified.count), "\(notified.count)")
        #expect(await Tools.eventually { Self.launches(fixture, "folders").count == notified.count }, "\(fixture.serviceLog.suffix(3000))")
        #expect(Self.launches(fixture, "files").isEmpty)
        #expect(notified.first?["summary"] as? String == "Pixel 7 sent 20 files (opened)")
        #expect(notified.first?["actions"] as? [String] == ["show-in-folder", "Show in folder", "not-from-this-device", "Not from this device", "dismiss", "Dismiss"])
        for n in notified { try await server.invoke(n["id"] as? Int ?? 0, "dismiss") }

        // A link: received text in the engine's own text file (where kdeconnectd writes it: its working directory).
        let text = FileManager.default.currentDirectoryPath + "/kdeconnect-" + String((0..<6).map { _ in "abcdefghijkmnpqrstuvwxyz23456789".randomElement()! }) + ".txt"
        try Data("todo://buy?milk=1\n".utf8).write(to: URL(fileURLWithPath: text))
        defer { unlink(text) }
        try engine.announceReceived(text)
        #expect(await Tools.eventually { Self.launches(fixture, "links").count == 1 }, "\(fixture.serviceLog.suffix(3000))")
        #expect(Self.launches(fixture, "links").first == "todo://buy?milk=1 source=org.kde.kdeconnect.daemon", "\(Self.launches(fixture, "links"))")
        #expect(await Tools.eventually { server.notified.last?["summary"] as? String == "Pixel 7 sent a link (opened)" })
    }

    /// Without a notification server on the bus, a burst is done as before notifications (here
    /// `OpenReceived=default`: opened) but once per transfer, and the log says why.
    @Test func withoutANotificationServerABurstStillOpensOncePerTransfer() async throws {
        let (fixture, engine, downloads) = try await Self.world("[Devices]\nOpenReceived=default\n")
        defer { fixture.stop() }
        defer { engine.stop() }
        try Self.burst(engine, downloads, count: 120)
        #expect(await Tools.eventually { Self.accounted(fixture.serviceLog) >= 120 }, "\(fixture.serviceLog.suffix(4000))")
        let transfers = Self.transfers(fixture.serviceLog)
        #expect(await Tools.eventually { fixture.serviceLog.components(separatedBy: "no notification server with actions on the bus").count - 1 == transfers },
                "\(fixture.serviceLog.suffix(3000))")
        #expect(transfers >= 1 && transfers < 10, "\(transfers) transfers for one burst")
        #expect(await Tools.eventually { Self.launches(fixture, "files").count + Self.launches(fixture, "folders").count == transfers },
                "\(fixture.serviceLog.suffix(3000))")
    }
    /// A drawing notification server (Debian's notification-daemon, GTK, on a private Xvfb)
    /// shows the transfer as one popup naming the device and the files, with its buttons; the
    /// picture is saved as `.build/test-output/received-notification.png` (docs/images has a copy).
    @Test func notificationDaemonShowsTheTransferOnAScreen() async throws {
        let daemonPath = "/usr/lib/notification-daemon/notification-daemon"
        try #require(FileManager.default.isExecutableFile(atPath: daemonPath), "notification-daemon is not installed (scripts/deps.sh)")
        let x = try Xvfb(width: 1024, height: 360)
        defer { x.stop() }
        let (fixture, engine, downloads) = try await Self.world("")
        defer { fixture.stop() }
        defer { engine.stop() }
        var env = fixture.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = fixture.bus.address
        env["DISPLAY"] = x.display
        let log = fixture.records.appendingPathComponent("notification-daemon.log").path
        let daemon = try ChildProcess([daemonPath], environment: env, stdout: log, stderr: log)
        defer { kill(daemon.pid, SIGTERM) }
        let up = await Tools.eventually {
            (try? await Tools.run(["gdbus", "call", "--address", fixture.bus.address, "--dest", "org.freedesktop.Notifications", "--object-path",
                                   "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.GetServerInformation"]))?.status == 0
        }
        try #require(up, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        for name in ["beach.png", "dinner.jpg", "notes.txt"] {
            try Data("not really \(name)".utf8).write(to: downloads.appendingPathComponent(name))
            try engine.announceReceived("file://" + downloads.appendingPathComponent(name).path)
        }
        #expect(await Tools.eventually { fixture.serviceLog.contains("of 3 item(s) from Pixel 7 as notification") }, "\(fixture.serviceLog.suffix(3000))")
        try await Self.picture(of: x, daemonLog: log, as: "received-notification.png")
    }

    /// The same transfer on Wayland, in a bare session: mako (a Wayland notification server,
    /// drawn as a layer-shell surface) on a headless sway, with no `LANG` or theme in its
    /// environment; the screen read with grim (wlr-screencopy) until the popup shows — over 2,000
    /// pixels of mako's background colour (#285577), none before the transfer — and saved as
    /// `.build/test-output/received-notification-wayland.png` (docs/images has a copy); then "Open"
    /// pressed through mako (`makoctl invoke`, its menu's way) opens the files' folder.
    @Test func makoShowsTheTransferOnWaylandInABareSession() async throws {
        let (fixture, engine, downloads) = try await Self.world("")
        defer { fixture.stop() }
        defer { engine.stop() }
        let mako = try await MakoScreen(environment: fixture.environment, busAddress: fixture.bus.address, records: fixture.records)
        defer { mako.stop() }
        for name in ["beach.png", "dinner.jpg", "notes.txt"] {
            try Data("not really \(name)".utf8).write(to: downloads.appendingPathComponent(name))
            try engine.announceReceived("file://" + downloads.appendingPathComponent(name).path)
        }
        #expect(await Tools.eventually { fixture.serviceLog.contains("of 3 item(s) from Pixel 7 as notification") }, "\(fixture.serviceLog.suffix(3000))")
        try await mako.picture(as: "received-notification-wayland.png")
        // "Open" pressed through mako itself (its menu's action, by makoctl): the three files' folder opens, once, and the popup goes.
        #expect(Self.launches(fixture, "folders").isEmpty, "opened before the user said Open")
        let pressed = try await Tools.run([try Tools.path(of: "makoctl"), "invoke", "open"], environment: mako.environment)
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(await Tools.eventually { Self.launches(fixture, "folders").count == 1 }, "\(fixture.serviceLog.suffix(3000))")
        #expect(Self.launches(fixture, "folders").first?.hasPrefix("file://" + downloads.path) == true, "\(Self.launches(fixture, "folders"))")
        #expect(await mako.waitUntilNoPopup(), "the popup stayed after Open: \(mako.makoLog)")
        #expect(Self.launches(fixture, "files").isEmpty && Self.launches(fixture, "folders").count == 1)
    }

    /// The notification server's popup on `x` (the first mapped window of some size), once drawn,
    /// saved as `.build/test-output/<name>`; `daemonLog` is the server's log, for a failure's message.
    static func picture(of x: Xvfb, daemonLog log: String, as name: String) async throws {
        var popup: TopLevelWindow? = nil
        #expect(await Tools.eventually {
            popup = (try? x.topLevelWindows())?.first { $0.isMapped && $0.width > 100 && $0.height > 40 }
            return popup != nil
        }, "no notification window: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let window = try #require(popup)
        let folder = Built.packageRoot.appendingPathComponent(".build/test-output")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let picture = folder.appendingPathComponent(name).path
        // Drawn once its window is mapped; the picture is taken until it shows more than the black root.
        #expect(await x.watch { shot in shot.boundingBox() != nil } != nil)
        let shot = try await Tools.run([Tools.systemPython, Built.packageRoot.appendingPathComponent("scripts/x11-screenshot.py").path, picture, String(window.id)],
                                       environment: ["DISPLAY": x.display])
        #expect(shot.status == 0 && FileManager.default.fileExists(atPath: picture), "\(shot.stderr)")
    }
}
