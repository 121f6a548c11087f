import Foundation
import Glibc
import Testing
import DBusTestSupport

/// Issue 40, item 2: `schemebridge integrate enable|status|disable --portal` with the real
/// xdg-permission-store on a private bus and Debian 12's portal (1.16: the environment way — the
/// user's copy of the portal's D-Bus activation file and a systemd drop-in). `disable --portal`
/// leaves every file and directory and every permission-store entry as it was, also after the
/// command was killed (SIGKILL) at any of its steps; and after `enable --portal` the real portal,
/// started by the bus from the user's activation file, asks SchemeBridge when a Flatpak app with
/// no `--talk-name` runs `gio open` — where it would have launched the app's usual choice itself.
@Suite struct PortalIntegrateTests {
    static let storeName = "org.freedesktop.impl.portal.PermissionStore"
    static let storePath = "/org/freedesktop/impl/portal/PermissionStore"
    static let types = ["text/plain", "x-scheme-handler/mailto", "x-scheme-handler/todolist"]
    /// The types `enable --portal` marks always-ask: text/plain's route has a pattern, mailto the
    /// portal opens with its default; todolist's route is published instead (Todo2 is installed).
    static let asked = ["text/plain", "x-scheme-handler/mailto"]
    static let published = "'org.test.NoTalk': ['org.example.Todo2', '3', '3']"

    /// A tree with the store, the system's portal activation file, SchemeBridge's `.portal` file,
    /// `[Routes]` for the three types (todolist's publishable: its handler is installed), and
    /// store entries of each kind: one the portal made (app permissions, no data), one with data
    /// of its own, one missing.
    struct Stage {
        let f: ServiceFixture
        let portals: URL
        init() async throws {
            f = try ServiceFixture()
            try f.bus.addService(name: PortalIntegrateTests.storeName, exec: "/usr/libexec/xdg-permission-store")
            let services = f.systemData.appendingPathComponent("dbus-1/services")
            try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=org.freedesktop.portal.Desktop\nExec=/usr/libexec/xdg-desktop-portal\nSystemdService=xdg-desktop-portal.service\n"
                .write(to: services.appendingPathComponent("org.freedesktop.portal.Desktop.service"), atomically: true, encoding: .utf8)
            portals = f.root.appendingPathComponent("portals")
            try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Built.packageRoot.appendingPathComponent("dbus/schemebridge.portal"),
                                             to: portals.appendingPathComponent("schemebridge.portal"))
            try f.entry("org.example.Todo2.desktop", "Name=Todo2\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
            try f.writeConfig(Self.routes)
            try await store("SetPermission", "desktop-used-apps", "true", "text/plain", "org.test.NoTalk", "['org.example.Note', '2']")
            try await store("SetValue", "desktop-used-apps", "true", "x-scheme-handler/todolist", "<{'mine': <uint32 7>, 'always-ask': <false>}>")
        }

        static let routes = "[Routes]\ntodolist from org.test.NoTalk=org.example.Todo2.desktop\ntext/plain from org.test.*=org.example.Note.desktop\n"
            + "mailto from org.test.NoTalk=org.example.Mail.desktop\n"

        /// The command line's environment: the tree's, the bus, the desktop, the portals directory.
        var environment: [String: String] {
            var env = f.environment
            env["DBUS_SESSION_BUS_ADDRESS"] = f.bus.address
            env["XDG_CURRENT_DESKTOP"] = "X-SBTest"
            env["XDG_DESKTOP_PORTAL_DIR"] = portals.path
            return env
        }

        func cli(_ args: String...) async throws -> ProcessResult {
            try await Tools.run([try Built.executable("schemebridge")] + args, environment: environment)
        }

        @discardableResult
        func store(_ method: String, _ args: String...) async throws -> ProcessResult {
            let r = try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", PortalIntegrateTests.storeName,
                                         "--object-path", PortalIntegrateTests.storePath, "--method", "\(PortalIntegrateTests.storeName).\(method)"] + args)
            if method != "Lookup" && r.status != 0 { throw ToolError("PermissionStore.\(method) failed: \(r.stderr)") }
            return r
        }

        /// Every file and directory under the places `--portal` writes (relative path and bytes;
        /// a directory as nil), and each type's store entry as the store answers `Lookup`.
        func snapshot() async throws -> [String] {
            var out: [String] = []
            for top in [f.dataHome, f.configHome] {
                let all = (FileManager.default.enumerator(atPath: top.path)?.allObjects as? [String] ?? []).sorted()
                for rel in all where !rel.hasPrefix("schemebridge") && !rel.hasPrefix("flatpak") {
                    let path = top.appendingPathComponent(rel).path
                    var isDir: ObjCBool = false
                    _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
                    out.append(isDir.boolValue ? "dir \(rel)" : "file \(rel) \(Array(FileManager.default.contents(atPath: path) ?? Data()))")
                }
            }
            for type in PortalIntegrateTests.types {
                let r = try await store("Lookup", "desktop-used-apps", type)
                out.append("\(type): \(r.status == 0 ? r.stdout : r.stderr.contains("NotFound") ? "no entry" : "failed: \(r.stderr)")")
            }
            return out
        }

        /// Whether `always-ask` is true for `type`.
        func asks(_ type: String) async throws -> Bool {
            try await store("Lookup", "desktop-used-apps", type).stdout.contains("'always-ask': <true>")
        }

        /// Whether everything `enable --portal` does to the store is in place: the asked types
        /// always-ask, todolist's route published (and todolist not always-ask).
        func enabled() async throws -> Bool {
            for type in PortalIntegrateTests.asked where try await !asks(type) { return false }
            let todolist = try await store("Lookup", "desktop-used-apps", "x-scheme-handler/todolist").stdout
            return todolist.contains(PortalIntegrateTests.published) && !todolist.contains("'always-ask': <true>")
        }
    }

    @Test func enableThenDisableLeavesTheFilesAndTheStoreAsTheyWere() async throws {
        let s = try await Stage()
        defer { s.f.stop() }
        let before = try await s.snapshot()
        let enable = try await s.cli("integrate", "enable", "--portal")
        #expect(enable.status == 0, "\(enable.stdout)\(enable.stderr)")
        let service = s.f.dataHome.appendingPathComponent("dbus-1/services/org.freedesktop.portal.Desktop.service")
        let written = (try? String(contentsOf: service, encoding: .utf8)) ?? ""
        #expect(written.contains("\nExec=/usr/bin/env XDG_CURRENT_DESKTOP=X-SchemeBridge:X-SBTest /usr/libexec/xdg-desktop-portal\n"), "\(written)")
        #expect(written.contains("\nSystemdService=xdg-desktop-portal.service\n"))
        let dropIn = s.f.configHome.appendingPathComponent("systemd/user/xdg-desktop-portal.service.d/schemebridge.conf")
        #expect(((try? String(contentsOf: dropIn, encoding: .utf8)) ?? "").contains("\nEnvironment=XDG_CURRENT_DESKTOP=X-SchemeBridge:X-SBTest\n"))
        for type in Self.asked { #expect(try await s.asks(type), "\(type)") }
        // todolist's route is the app's permission, as the portal's own "chosen three times"; the
        // type is not always-ask (its data as it was).
        let todolist = try await s.store("Lookup", "desktop-used-apps", "x-scheme-handler/todolist").stdout
        #expect(todolist.contains(Self.published) && todolist.contains("'always-ask': <false>") && todolist.contains("'mine': <uint32 7>"), "\(todolist)")
        #expect(try await s.enabled())
        #expect(try await s.store("Lookup", "desktop-used-apps", "text/plain").stdout.contains("'org.test.NoTalk': ['org.example.Note', '2']"))

        let status = try await s.cli("integrate", "status", "--portal")
        #expect(status.status == 0 && status.stdout.contains("portal: on") && status.stdout.contains("XDG_CURRENT_DESKTOP=X-SchemeBridge:X-SBTest"),
                "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.contains("always-ask: text/plain x-scheme-handler/mailto\n"), "\(status.stdout)")
        #expect(status.stdout.contains("applied by the portal: x-scheme-handler/todolist from org.test.NoTalk → org.example.Todo2.desktop"), "\(status.stdout)")
        // The plain status says it too; JSON for scripts.
        let plain = try await s.cli("integrate", "status")
        #expect(plain.status == 0 && plain.stdout.contains("integration: off") && plain.stdout.contains("portal: on"), "\(plain.stdout)\(plain.stderr)\n\(s.f.serviceLog)")
        let json = try await s.cli("integrate", "status", "--portal", "--json")
        #expect(json.stdout.contains("\"portal\":true") && json.stdout.contains("\"way\":\"environment\""), "\(json.stdout)")
        #expect(json.stdout.contains("\"published\":[{\"type\":\"x-scheme-handler/todolist\",\"app\":\"org.test.NoTalk\",\"handler\":\"org.example.Todo2.desktop\"}]"), "\(json.stdout)")
        // Again: nothing more to do.
        let again = try await s.cli("integrate", "enable", "--portal")
        #expect(again.status == 0 && !again.stdout.contains("changed:"), "\(again.stdout)\(again.stderr)")

        // [Routes] change: the route is now another app's; the running service follows (the old
        // permission given back, the new one written), and a re-run finds nothing left to do.
        try s.f.writeConfig(Stage.routes.replacingOccurrences(of: "todolist from org.test.NoTalk", with: "todolist from org.test.Other"))
        #expect(await Tools.eventually { s.f.serviceLog.contains("re-synced the routes the portal applies: undone: route x-scheme-handler/todolist org.test.NoTalk; changed: route x-scheme-handler/todolist org.test.Other") },
                "\(s.f.serviceLog)")
        let moved = try await s.cli("integrate", "enable", "--portal")
        #expect(moved.status == 0 && !moved.stdout.contains("changed:") && !moved.stdout.contains("undone:"), "\(moved.stdout)\(moved.stderr)")
        let now = try await s.store("Lookup", "desktop-used-apps", "x-scheme-handler/todolist").stdout
        #expect(!now.contains("org.test.NoTalk") && now.contains("'org.test.Other': ['org.example.Todo2', '3', '3']"), "\(now)")
        // The portal's count rewritten since (same handler): still given back exactly.
        try await s.store("SetPermission", "desktop-used-apps", "false", "x-scheme-handler/todolist", "org.test.Other", "['org.example.Todo2', '5', '5']")

        let disable = try await s.cli("integrate", "disable", "--portal")
        #expect(disable.status == 0 && disable.stdout.contains("portal: off"), "\(disable.stdout)\(disable.stderr)")
        #expect(try await s.snapshot() == before)
    }

    /// `/proc/PID/stat` says the process is stopped (state T).
    static func isStopped(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)...].first == "T"
    }

    /// Runs the command line with the test hook stopping it after step `n`; kills it there
    /// (SIGKILL). False when it finished before step `n` (there is no such step).
    static func killed(_ s: Stage, atStep n: Int, _ args: [String]) async throws -> Bool {
        var env = s.environment
        env["SCHEMEBRIDGE_TEST_PORTAL_STOP_AT"] = "\(n)"
        let out = s.f.root.appendingPathComponent("killed-\(n).log").path
        let child = try ChildProcess([try Built.executable("schemebridge")] + args, environment: env, stdout: out, stderr: out)
        let settled = await Tools.eventually { isStopped(child.pid) || !child.isRunning }
        try #require(settled, "the command neither stopped nor ended")
        if !child.isRunning {
            let code = await child.wait()
            #expect(code == 0, "\((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")")
            return false
        }
        child.signal(SIGKILL)
        _ = await child.wait()
        return true
    }

    /// SIGKILL after each step of `enable --portal` (the record written, each directory, file and
    /// store entry, the record again): `status` then finishes the enable, or `disable` undoes it
    /// straight away; either way `disable` leaves everything as it was.
    @Test func aKillAtAnyStepOfEnableIsFinishedOrUndone() async throws {
        let s = try await Stage()
        defer { s.f.stop() }
        let before = try await s.snapshot()
        for statusFirst in [true, false] {
            var n = 1
            while try await Self.killed(s, atStep: n, ["integrate", "enable", "--portal"]) {
                if statusFirst {
                    let status = try await s.cli("integrate", "status", "--portal")
                    #expect(status.status == 0 && status.stdout.contains("portal: on") && !status.stdout.contains("changed since"),
                            "step \(n): \(status.stdout)\(status.stderr)")
                    #expect(try await s.enabled(), "step \(n)")
                }
                let disable = try await s.cli("integrate", "disable", "--portal")
                #expect(disable.status == 0 && disable.stdout.contains("portal: off"), "step \(n): \(disable.stdout)\(disable.stderr)")
                #expect(try await s.snapshot() == before, "killed after step \(n) (status first: \(statusFirst))")
                n += 1
            }
            // The run past the last step finished by itself: undo it for the next round.
            #expect(n > 8, "only \(n - 1) steps")
            #expect(try await s.cli("integrate", "disable", "--portal").status == 0)
            #expect(try await s.snapshot() == before)
        }
    }

    /// SIGKILL after each step of `disable --portal`: the next `disable` (or `status`) finishes it.
    @Test func aKillAtAnyStepOfDisableIsFinished() async throws {
        let s = try await Stage()
        defer { s.f.stop() }
        let before = try await s.snapshot()
        var n = 1
        while true {
            let enable = try await s.cli("integrate", "enable", "--portal")
            try #require(enable.status == 0, "\(enable.stderr)")
            guard try await Self.killed(s, atStep: n, ["integrate", "disable", "--portal"]) else { break }
            let next = try await s.cli("integrate", n % 2 == 0 ? "status" : "disable", "--portal")
            #expect(next.status == 0 && next.stdout.contains("portal: off"), "step \(n): \(next.stdout)\(next.stderr)")
            #expect(try await s.snapshot() == before, "killed after step \(n)")
            n += 1
        }
        #expect(n > 8, "only \(n - 1) steps")
        #expect(try await s.snapshot() == before)
    }

    /// After `integrate enable --portal`, the portal the bus starts from the user's activation
    /// file takes SchemeBridge's AppChooser, and the type being always-ask makes it ask even though
    /// the app chose Todo three times (the portal would launch Todo by itself): a Flatpak app's
    /// `gio open` goes where its `[Routes]` line says, with no dialog. (The route's pattern keeps
    /// the type always-ask: the portal cannot apply it itself; routes it applies are in
    /// PortalAppliesRoutesTests.)
    @Test func afterIntegrateTheRealPortalAsksSchemeBridgeForAFlatpakAppsGioOpen() async throws {
        let p = try await PortalFixture()
        defer { p.stop() }
        let f = p.service
        for n in ["Todo", "Todo2"] {
            try f.entry("org.example.\(n).desktop", "Name=\(n)\nExec=\(try f.recorder(n)) %u\nMimeType=x-scheme-handler/todolist;")
        }
        try p.addSchemeBridgePortal()
        try f.writeConfig("[Routes]\ntodolist from org.test.NoTalk*=org.example.Todo2.desktop\n[Chooser]\nCommand=\(try f.chooser("never", "exit 1"))\n")
        let lookup = { (method: String, args: [String]) in
            try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", Self.storeName, "--object-path", Self.storePath,
                                 "--method", "\(Self.storeName).\(method)"] + args)
        }
        let set = try await lookup("SetPermission", ["desktop-used-apps", "true", "x-scheme-handler/todolist", "org.test.NoTalk", "['org.example.Todo', '3']"])
        try #require(set.status == 0, "\(set.stderr)")

        // The portal as a session bus starts it: the system's activation file (here with the
        // fixture's GLib settings and portals directory), the user's own directory searched first.
        let system = f.systemData.appendingPathComponent("dbus-1/services")
        let user = f.dataHome.appendingPathComponent("dbus-1/services")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        let env = "\(try Tools.path(of: "env")) GSETTINGS_SCHEMA_DIR=/usr/share/glib-2.0/schemas GSETTINGS_BACKEND=memory XDG_DESKTOP_PORTAL_DIR=\(p.portals.path)"
        try "[D-BUS Service]\nName=\(PortalFixture.portalName)\nExec=\(env) /usr/libexec/xdg-desktop-portal\n"
            .write(to: system.appendingPathComponent("\(PortalFixture.portalName).service"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: f.bus.serviceDirectory.appendingPathComponent("\(PortalFixture.portalName).service"))
        let conf = f.bus.directory.appendingPathComponent("bus.conf")
        let text = try String(contentsOf: conf, encoding: .utf8)
        try text.replacingOccurrences(of: "<servicedir>", with: "<servicedir>\(user.path)</servicedir><servicedir>\(system.path)</servicedir><servicedir>", options: [], range: text.range(of: "<servicedir>"))
            .write(to: conf, atomically: true, encoding: .utf8)
        let reload = { try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                            "--method", "org.freedesktop.DBus.ReloadConfig"]) }
        try #require(try await reload().status == 0)
        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.AppChooser")

        var cliEnv = f.environment
        cliEnv["DBUS_SESSION_BUS_ADDRESS"] = f.bus.address
        cliEnv["XDG_CURRENT_DESKTOP"] = PortalFixture.desktop
        cliEnv["XDG_DESKTOP_PORTAL_DIR"] = p.portals.path
        let enable = try await Tools.run([try Built.executable("schemebridge"), "integrate", "enable", "--portal"], environment: cliEnv)
        try #require(enable.status == 0, "\(enable.stdout)\(enable.stderr)")
        #expect(enable.stdout.contains("changed: always-ask x-scheme-handler/todolist"), "\(enable.stdout)")
        #expect(try await reload().status == 0)  // a session bus notices new files by itself (inotify); this one is told

        let open = try await p.flatpak.flatpak(["run", "--command=gio", "org.test.NoTalk", "open", "todolist://from-gio?x=1"])
        #expect(open.status == 0, "\(open.stdout)\(open.stderr)\n\(p.busLog)")
        #expect(await f.recordedArgv("Todo2") == ["todolist://from-gio?x=1"], "\(p.busLog)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("Todo.argv").path))
        #expect(f.chooserRuns("never") == 0)
        let ours = try #require(try await p.owner(of: "io.github.schemebridge.SchemeBridge1"), "SchemeBridge is not on the bus")
        let seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
        #expect(seen.contains("destination=\(ours) ") && seen.contains("string \"org.test.NoTalk\""), "\(seen)")

        let disable = try await Tools.run([try Built.executable("schemebridge"), "integrate", "disable", "--portal"], environment: cliEnv)
        #expect(disable.status == 0, "\(disable.stdout)\(disable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: user.appendingPathComponent("\(PortalFixture.portalName).service").path))
        #expect(!(try await lookup("Lookup", ["desktop-used-apps", "x-scheme-handler/todolist"])).stdout.contains("always-ask"))
    }
}
