import Foundation
import Glibc
import Testing
import DBusTestSupport

/// Issue 40: routes the portal applies itself. After `schemebridge integrate enable --portal`, a
/// `[Routes]` line for an app's id whose handler shows no launch image is the app's permission in
/// the real permission store as the portal's own "chosen three times", and Debian 12's real
/// portal (1.16) launches the handler for a real `flatpak run` app (no `--talk-name`) without
/// asking SchemeBridge's AppChooser — the monitor of the backend's calls sees none; a route whose
/// handler shows a launch image for its scheme keeps its type always-ask, so the portal asks
/// SchemeBridge, which puts the image up; `disable` gives the entry back as it was.
@Suite struct PortalAppliesRoutesTests {
    /// Todo and Todo2, each handling `todolist:` and `imaged:` (Todo2 with a launch image for
    /// `imaged:`), and SchemeBridge's AppChooser backend in the portal's directory.
    static func todos(_ p: PortalFixture) throws {
        let f = p.service
        for n in ["Todo", "Todo2"] {
            try f.entry("org.example.\(n).desktop", "Name=\(n)\nExec=\(try f.recorder(n)) %u\nMimeType=x-scheme-handler/todolist;x-scheme-handler/imaged;")
        }
        let images = f.dataHome.appendingPathComponent("launch-images/org.example.Todo2")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: images.appendingPathComponent("Default-imaged.png"))
        try p.addSchemeBridgePortal()
    }

    @Test func thePortalAppliesAPublishedRouteWithoutAskingAndAsksForALaunchImage() async throws {
        let p = try await PortalFixture(currentDesktop: "X-SchemeBridge:\(PortalFixture.desktop)")
        defer { p.stop() }
        let f = p.service
        try Self.todos(p)
        try f.writeConfig("[Routes]\ntodolist from org.test.NoTalk=org.example.Todo2.desktop\nimaged from org.test.NoTalk=org.example.Todo2.desktop\n"
            + "[Chooser]\nCommand=\(try f.chooser("never", "exit 1"))\n")
        // The system's portal activation file, which the environment way copies (this bus starts
        // the fixture's own portal, already with SchemeBridge's desktop first).
        let system = f.systemData.appendingPathComponent("dbus-1/services")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=\(PortalFixture.portalName)\nExec=/usr/libexec/xdg-desktop-portal\n"
            .write(to: system.appendingPathComponent("\(PortalFixture.portalName).service"), atomically: true, encoding: .utf8)
        let store = { (method: String, args: [String]) in
            try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", PortalIntegrateTests.storeName, "--object-path", PortalIntegrateTests.storePath,
                                 "--method", "\(PortalIntegrateTests.storeName).\(method)"] + args)
        }
        // The app chose Todo three times: the portal alone would launch Todo.
        let set = try await store("SetPermission", ["desktop-used-apps", "true", "x-scheme-handler/todolist", "org.test.NoTalk", "['org.example.Todo', '3']"])
        try #require(set.status == 0, "\(set.stderr)")
        let before = try await store("Lookup", ["desktop-used-apps", "x-scheme-handler/todolist"]).stdout

        var env = f.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = f.bus.address
        env["XDG_CURRENT_DESKTOP"] = PortalFixture.desktop
        env["XDG_DESKTOP_PORTAL_DIR"] = p.portals.path
        let cli = { (args: [String]) in try await Tools.run([try Built.executable("schemebridge")] + args, environment: env) }
        let enable = try await cli(["integrate", "enable", "--portal", "--portal-version", "1.16.0"])
        try #require(enable.status == 0, "\(enable.stdout)\(enable.stderr)")
        #expect(enable.stdout.contains("changed: route x-scheme-handler/todolist org.test.NoTalk")
                && enable.stdout.contains("changed: always-ask x-scheme-handler/imaged") && !enable.stdout.contains("always-ask x-scheme-handler/todolist"),
                "\(enable.stdout)")
        let todolist = try await store("Lookup", ["desktop-used-apps", "x-scheme-handler/todolist"]).stdout
        #expect(todolist.contains("'org.test.NoTalk': ['org.example.Todo2', '3', '3']") && !todolist.contains("always-ask"), "\(todolist)")

        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.AppChooser")
        let log = f.root.appendingPathComponent("notify.log")
        let server = try await LaunchImageServiceTests.notificationServer(f, log: log)
        defer { server.signal(SIGTERM) }

        // Published: the portal launches Todo2 itself.
        #expect(try await PortalAppChooserTests.open(p, "todolist://published") == 0, "\(p.busLog)")
        #expect(await f.handled("Todo2", "todolist://published"), "\(p.busLog)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("Todo.argv").path))

        // A launch image: the portal asks SchemeBridge, which shows it as Todo2 starts.
        #expect(try await PortalAppChooserTests.open(p, "imaged://asked") == 0, "\(p.busLog)")
        #expect(await f.handled("Todo2", "imaged://asked"), "\(p.busLog)")
        #expect(await Tools.eventually { (try? String(contentsOf: log, encoding: .utf8))?.contains("Default-imaged.png") == true }, "\(f.serviceLog)")
        // The backend's calls, in order: only the second open's (the monitor has seen it, so it
        // has seen the first open's too, had there been one).
        #expect(await Tools.eventually { ((try? String(contentsOf: calls, encoding: .utf8)) ?? "").contains("imaged://asked") })
        let seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
        #expect(seen.components(separatedBy: "member=ChooseApplication").count - 1 == 1 && !seen.contains("todolist://"), "\(seen)")
        #expect(f.chooserRuns("never") == 0)

        let status = try await cli(["integrate", "status", "--portal"])
        #expect(status.stdout.contains("applied by the portal: x-scheme-handler/todolist from org.test.NoTalk → org.example.Todo2.desktop")
                && status.stdout.contains("always-ask: x-scheme-handler/imaged"), "\(status.stdout)\(status.stderr)")
        let disable = try await cli(["integrate", "disable", "--portal"])
        #expect(disable.status == 0 && disable.stdout.contains("portal: off"), "\(disable.stdout)\(disable.stderr)")
        #expect(try await store("Lookup", ["desktop-used-apps", "x-scheme-handler/todolist"]).stdout == before)
        #expect(!(try await store("Lookup", ["desktop-used-apps", "x-scheme-handler/imaged"])).stdout.contains("always-ask"))
    }

    /// The running service follows `[Routes]` (issue 40): after `integrate enable --portal`
    /// published todolist: for org.test.NoTalk to Todo, the user edits the line to Todo2 while
    /// the service runs; the service re-syncs the permission store (its journal says so: the test
    /// waits for that line), and the real portal launches Todo2 for the sandboxed app without
    /// asking SchemeBridge's AppChooser. The line removed, the type is always-ask again; `status`
    /// lists what the service changed, and `disable` gives the entry back byte for byte.
    @Test func editingRoutesWhileTheServiceRunsChangesWhatThePortalLaunches() async throws {
        let p = try await PortalFixture(currentDesktop: "X-SchemeBridge:\(PortalFixture.desktop)")
        defer { p.stop() }
        let f = p.service
        try Self.todos(p)
        let chooser = "[Chooser]\nCommand=\(try f.chooser("never", "exit 1"))\n"
        let imaged = "imaged from org.test.NoTalk=org.example.Todo2.desktop\n"
        try f.writeConfig("[Routes]\ntodolist from org.test.NoTalk=org.example.Todo.desktop\n" + imaged + chooser)
        let system = f.systemData.appendingPathComponent("dbus-1/services")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=\(PortalFixture.portalName)\nExec=/usr/libexec/xdg-desktop-portal\n"
            .write(to: system.appendingPathComponent("\(PortalFixture.portalName).service"), atomically: true, encoding: .utf8)
        let store = { (method: String, args: [String]) in
            try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", PortalIntegrateTests.storeName, "--object-path", PortalIntegrateTests.storePath,
                                 "--method", "\(PortalIntegrateTests.storeName).\(method)"] + args)
        }
        let lookup = { try await store("Lookup", ["desktop-used-apps", "x-scheme-handler/todolist"]).stdout }
        // The app chose Todo2 once in the portal's own dialog.
        let set = try await store("SetPermission", ["desktop-used-apps", "true", "x-scheme-handler/todolist", "org.test.NoTalk", "['org.example.Todo2', '1']"])
        try #require(set.status == 0, "\(set.stderr)")
        let before = try await lookup()

        var env = f.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = f.bus.address
        env["XDG_CURRENT_DESKTOP"] = PortalFixture.desktop
        env["XDG_DESKTOP_PORTAL_DIR"] = p.portals.path
        let cli = { (args: [String]) in try await Tools.run([try Built.executable("schemebridge")] + args, environment: env) }
        let enable = try await cli(["integrate", "enable", "--portal", "--portal-version", "1.16.0"])
        try #require(enable.status == 0, "\(enable.stdout)\(enable.stderr)")
        #expect(try await lookup().contains("'org.test.NoTalk': ['org.example.Todo', '3', '3']"))

        // The service runs; the user edits the line.
        _ = try await p.schemeBridge()
        try f.writeConfig("[Routes]\ntodolist from org.test.NoTalk=org.example.Todo2.desktop\n" + imaged + chooser)
        #expect(await Tools.eventually { f.serviceLog.contains("re-synced the routes the portal applies: undone: route x-scheme-handler/todolist org.test.NoTalk; changed: route x-scheme-handler/todolist org.test.NoTalk") },
                "\(f.serviceLog)")
        let synced = try await lookup()
        #expect(synced.contains("'org.test.NoTalk': ['org.example.Todo2', '3', '3']") && !synced.contains("always-ask"), "\(synced)")

        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.AppChooser")
        let log = f.root.appendingPathComponent("notify.log")
        let server = try await LaunchImageServiceTests.notificationServer(f, log: log)
        defer { server.signal(SIGTERM) }
        #expect(try await PortalAppChooserTests.open(p, "todolist://edited") == 0, "\(p.busLog)")
        #expect(await f.handled("Todo2", "todolist://edited"), "\(p.busLog)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("Todo.argv").path))
        // An open the portal asks SchemeBridge for: once the monitor has seen it, it has seen any before it.
        #expect(try await PortalAppChooserTests.open(p, "imaged://asked") == 0, "\(p.busLog)")
        #expect(await Tools.eventually { ((try? String(contentsOf: calls, encoding: .utf8)) ?? "").contains("imaged://asked") })
        let seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
        #expect(seen.components(separatedBy: "member=ChooseApplication").count - 1 == 1 && !seen.contains("todolist://"), "\(seen)")
        #expect(f.chooserRuns("never") == 0)

        let status = try await cli(["integrate", "status", "--portal"])
        #expect(status.stdout.contains("applied by the portal: x-scheme-handler/todolist from org.test.NoTalk → org.example.Todo2.desktop"), "\(status.stdout)\(status.stderr)")

        // The line removed: the entry is given back and the type is always-ask again.
        try f.writeConfig("[Routes]\n" + imaged + chooser)
        #expect(await Tools.eventually { f.serviceLog.contains("re-synced the routes the portal applies: undone: route x-scheme-handler/todolist org.test.NoTalk; changed: always-ask x-scheme-handler/todolist") },
                "\(f.serviceLog)")
        let removed = try await lookup()
        #expect(removed.contains("'org.test.NoTalk': ['org.example.Todo2', '1']") && removed.contains("'always-ask': <true>"), "\(removed)")

        let disable = try await cli(["integrate", "disable", "--portal"])
        #expect(disable.status == 0 && disable.stdout.contains("portal: off"), "\(disable.stdout)\(disable.stderr)")
        #expect(try await lookup() == before)
    }
}
