import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 40, item 1: SchemeBridge as the portal's `AppChooser` backend. A real `flatpak run` app
/// with no `--talk-name` (org.test.NoTalk) calls `OpenURI` on Debian 12's real xdg-desktop-portal
/// (1.16); the portal takes SchemeBridge's shipped `schemebridge.portal` (`UseIn=X-SchemeBridge`,
/// first in the portal's `XDG_CURRENT_DESKTOP`, as on 1.16 after `integrate --portal`), and the
/// permission store marks the type always-ask (what makes the frontend ask its backend each time).
/// The decision is SchemeBridge's: `[Routes]` by the app's id, its remembered choice, else
/// SchemeBridge's chooser (`[Chooser] Command=`); the frontend launches the answer.
@Suite struct PortalAppChooserTests {
    static let type = "x-scheme-handler/todolist"

    /// The portal with SchemeBridge's backend, two handlers of `todolist:` (Todo, Todo2),
    /// `config`, the type always-ask, and a monitor of the backend's calls.
    static func stage(_ config: String, chooser: (ServiceFixture) throws -> String) async throws -> (PortalFixture, calls: URL) {
        let p = try await PortalFixture(currentDesktop: "X-SchemeBridge:\(PortalFixture.desktop)")
        for n in ["Todo", "Todo2"] {
            try p.service.entry("org.example.\(n).desktop", "Name=\(n)\nExec=\(try p.service.recorder(n)) %u\nMimeType=x-scheme-handler/todolist;")
        }
        try p.addSchemeBridgePortal()
        // A chooser waits for a person longer than any test's ceiling (a Close must be what ends it).
        try p.service.writeConfig(config + "\n[Chooser]\nCommand=\(try chooser(p.service))\nTimeout=3600\n")
        try await p.alwaysAsk(type)
        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.AppChooser")
        return (p, calls)
    }

    /// `OpenURI(url)` (or `OpenFile` of `file`) from the sandboxed app, which stays on the bus until
    /// the portal's `Response` (an app that leaves has its request closed): the response code.
    /// `parent`: the `parent_window` the app passes.
    static func open(_ p: PortalFixture, _ target: String, kind: String = "uri", parent: String? = nil) async throws -> UInt32 {
        let env = parent.map { ["--env=PORTAL_PARENT=\($0)"] } ?? []
        let r = try await p.flatpak.flatpak(["run"] + env + ["--command=portal-client", "org.test.NoTalk", kind, target])
        guard r.status == 0, r.stdout.hasPrefix("response "), let code = UInt32(r.stdout.dropFirst(9).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ToolError("portal-client \(kind) \(target) in the sandbox failed: \(r.stdout) \(r.stderr)\n\(p.busLog)")
        }
        return code
    }

    /// Whether the GTK backend's dialog is up (it must never be, with SchemeBridge's backend).
    static func gtkDialogShown(_ p: PortalFixture) -> Bool {
        ((try? p.xvfb.topLevelWindows()) ?? []).contains { $0.resName == "xdg-desktop-portal-gtk" && $0.isMapped }
    }

    @Test func aRouteForTheAppsIDDecidesWithNoDialog() async throws {
        let (p, calls) = try await Self.stage("[Routes]\ntodolist from org.test.NoTalk=org.example.Todo2.desktop",
                                                         chooser: { try $0.chooser("never", "exit 1") })
        defer { p.stop() }
        let code = try await Self.open(p, "todolist://routed?x=1")
        #expect(code == 0, "\(p.busLog)")
        #expect(await p.service.recordedArgv("Todo2") == ["todolist://routed?x=1"], "\(p.busLog)")
        #expect(p.service.chooserRuns("never") == 0)
        #expect(!Self.gtkDialogShown(p))
        #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("Todo.argv").path))
        // It was SchemeBridge that the frontend asked, with the app's id.
        let ours = try #require(try await p.owner(of: "io.github.schemebridge.SchemeBridge1"), "SchemeBridge is not on the bus")
        let seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
        #expect(seen.contains("destination=\(ours) ") && seen.contains("string \"org.test.NoTalk\""), "\(seen)")
    }

    @Test func askedOnceWithAlwaysThenRememberedWithNoDialog() async throws {
        let (p, _) = try await Self.stage("", chooser: { try $0.chooser("always-todo2", "printf 'org.example.Todo2.desktop\\talways\\n'") })
        defer { p.stop() }
        var code = try await Self.open(p, "todolist://first")
        #expect(code == 0, "\(p.busLog)")
        #expect(await p.service.recordedArgv("Todo2") == ["todolist://first"], "\(p.busLog)")
        #expect(p.service.chooserRuns("always-todo2") == 1, "SchemeBridge's chooser was not asked: \(p.busLog)")
        try FileManager.default.removeItem(at: p.service.records.appendingPathComponent("Todo2.argv"))

        code = try await Self.open(p, "todolist://second")
        #expect(code == 0, "\(p.busLog)")
        #expect(await p.service.recordedArgv("Todo2") == ["todolist://second"], "\(p.busLog)")
        #expect(p.service.chooserRuns("always-todo2") == 1, "asked again: \(p.service.chooserSaw("always-todo2"))")
        #expect(!Self.gtkDialogShown(p))
    }

    @Test func aCancelInTheChooserIsACancelAndNothingStarts() async throws {
        let (p, _) = try await Self.stage("", chooser: { try $0.chooser("canceller", "exit 1") })
        defer { p.stop() }
        let code = try await Self.open(p, "todolist://cancel")
        #expect(code == 1, "\(p.busLog)")
        #expect(p.service.chooserRuns("canceller") == 1)
        #expect(!Self.gtkDialogShown(p))
        for n in ["Todo", "Todo2"] {
            #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("\(n).argv").path))
        }
    }

    /// The app closes its request while SchemeBridge's chooser is up (the frontend passes the
    /// `Close` on to the backend's `Request` object): the chooser goes away, the backend's answer
    /// is a cancel (1, as the portal's `Request` says), and nothing starts.
    /// The same with a `Chooser1` client on the bus (`[Chooser] Bus=true`): the question it was
    /// asked for the portal's call (its context's `question`) is withdrawn with `Close(question)`
    /// when the portal closes the request, and the call is a cancel.
    @Test func aClosedRequestIsToldToTheChooser1Client() async throws {
        let p = try await PortalFixture(currentDesktop: "X-SchemeBridge:\(PortalFixture.desktop)")
        defer { p.stop() }
        let f = p.service
        for n in ["Todo", "Todo2"] {
            try f.entry("org.example.\(n).desktop", "Name=\(n)\nExec=\(try f.recorder(n)) %u\nMimeType=x-scheme-handler/todolist;")
        }
        try p.addSchemeBridgePortal()
        try f.writeConfig("[Chooser]\nBus=true\nTimeout=3600\n")
        try await p.alwaysAsk(Self.type)
        let data = f.root.appendingPathComponent(".var/app/org.test.NoTalk/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let up = data.appendingPathComponent("chooser-up"), log = f.records.appendingPathComponent("chooser1-held.log")
        let names = [ChooserContract.interface.rawValue, ChooserContract.busName.rawValue, ChooserContract.objectPath.rawValue]
        let client = try Tools.spawn(Clients.command("Chooser/chooser1-held", [log.path, up.path] + names),
                                     environment: ["SB_BUS": f.bus.address], stderr: f.records.appendingPathComponent("chooser1-held.err"))
        defer { client.signal(SIGTERM) }
        #expect(try await Tools.eventually {
            try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus.NameHasOwner", "string:\(ChooserContract.busName)"]).stdout.contains("true")
        }, "the Chooser1 client did not start")
        let r = try await p.flatpak.flatpak(["run", "--env=PORTAL_CLOSE_WHEN=\(up.path)", "--command=portal-client", "org.test.NoTalk", "uri", "todolist://closed"])
        #expect(r.status == 0 && r.stdout == "closed\n", "\(r.stdout) \(r.stderr)\n\(p.busLog)")
        let question = ((try? String(contentsOf: up, encoding: .utf8)) ?? "")
        #expect(!question.isEmpty, "the Chooser1 client was not asked with a question id")
        var seen = ""
        #expect(await Tools.eventually {
            seen = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return seen == "asked \(question)\nclosed \(question)\n"
        }, "\(seen)\n\(f.serviceLog)")
        // Logged once the question is withdrawn, as ChooseApplication answers: after the client heard Close.
        #expect(await Tools.eventually { f.serviceLog.contains("the portal closed its AppChooser request for") }, "\(f.serviceLog)")
        for n in ["Todo", "Todo2"] {
            #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("\(n).argv").path))
        }
    }

    @Test func aClosedRequestTakesTheChooserDownAndIsACancel() async throws {
        let (p, _) = try await Self.stage("", chooser: { f in
            // Up: it says so in the app's data folder (which the sandboxed app sees), then waits for
            // a person until the chooser ($PPID, the dialog's own process) is gone.
            let data = f.root.appendingPathComponent(".var/app/org.test.NoTalk/data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let up = data.appendingPathComponent("chooser-up").path
            return try f.chooser("held", "echo $PPID > '\(up).part' && mv '\(up).part' '\(up)'\nwhile kill -0 $PPID 2>/dev/null; do sleep 0.1; done\nexit 1")
        })
        defer { p.stop() }
        let up = p.service.root.appendingPathComponent(".var/app/org.test.NoTalk/data/chooser-up")
        let replies = try await p.monitor(match: "type='method_return',sender='\(try await p.schemeBridge())'")
        let r = try await p.flatpak.flatpak(["run", "--env=PORTAL_CLOSE_WHEN=\(up.path)", "--command=portal-client", "org.test.NoTalk", "uri", "todolist://closed"])
        #expect(r.status == 0 && r.stdout == "closed\n", "\(r.stdout) \(r.stderr)\n\(p.busLog)")
        #expect(p.service.chooserRuns("held") == 1)
        // The chooser (the dialog's process) went away.
        let pid = try #require(Int32(((try? String(contentsOf: up, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await Tools.eventually { kill(pid, 0) != 0 }, "the chooser \(pid) is still up after the Close\n\(p.service.serviceLog)")
        // ChooseApplication was answered 1 (the reply's body, a bare `uint32`: the `version` property's
        // reply is a `variant uint32 1`; the Close's reply has none).
        var seen = ""
        let answers = { seen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(await Tools.eventually {
            seen = (try? String(contentsOf: replies, encoding: .utf8)) ?? ""
            return answers().contains("uint32 1")
        }, "\(seen)")
        #expect(!answers().contains("uint32 0"), "\(seen)")
        // Logged before that reply is sent.
        #expect(p.service.serviceLog.contains("the portal closed its AppChooser request for"), "\(p.service.serviceLog)")
        for n in ["Todo", "Todo2"] {
            #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("\(n).argv").path))
        }
        #expect(!Self.gtkDialogShown(p))
    }

    /// The chooser is attached to the app's window: the `parent_window` the app gave the portal
    /// reaches SchemeBridge's dialog normalised (`x11:` in lower-case hexadecimal, as for the
    /// `parent-window` option); one of neither form is dropped and the dialog still shows.
    @Test func theChooserIsAttachedToTheAppsWindow() async throws {
        let (p, _) = try await Self.stage("", chooser: { try $0.chooser("parented", "printf 'org.example.Todo2.desktop\\n'") })
        defer { p.stop() }
        let record = p.service.records.appendingPathComponent("Todo2.argv")
        for (url, parent) in [("todolist://parented", "x11:0x1A00003"), ("todolist://wayland", "wayland:0e4d1c9a-5d2f"), ("todolist://odd", "mir:7")] {
            let code = try await Self.open(p, url, parent: parent)
            #expect(code == 0, "\(p.busLog)")
            #expect(await p.service.handled("Todo2", url), "\(p.busLog)")
            try? FileManager.default.removeItem(at: record)
        }
        #expect(p.service.chooserRuns("parented") == 3, "\(p.service.chooserSaw("parented"))")
        // The third's (neither form) was dropped: the dialog showed, with no parent.
        #expect(ParentWindowServiceTests.parents(p.service, "parented") == ["x11:1a00003", "wayland:0e4d1c9a-5d2f"], "\(p.service.chooserSaw("parented"))")
    }

    /// The chosen app's launch image goes up as the frontend starts it, as for `OpenURL` (no
    /// display here: the notification that carries it, from a notification server on the bus).
    @Test func theChosenAppsLaunchImageShowsWhileItStarts() async throws {
        let (p, _) = try await Self.stage("[Routes]\ntodolist from org.test.NoTalk=org.example.Todo2.desktop",
                                          chooser: { try $0.chooser("never", "exit 1") })
        defer { p.stop() }
        let dir = p.service.dataHome.appendingPathComponent("launch-images/org.example.Todo2")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: dir.appendingPathComponent("Default-todolist.png"))
        let log = p.service.root.appendingPathComponent("notify.log")
        let server = try await LaunchImageServiceTests.notificationServer(p.service, log: log)
        defer { server.signal(SIGTERM) }
        let code = try await Self.open(p, "todolist://with-an-image")
        #expect(code == 0, "\(p.busLog)")
        #expect(await p.service.handled("Todo2", "todolist://with-an-image"), "\(p.busLog)")
        #expect(await Tools.eventually { (try? String(contentsOf: log, encoding: .utf8))?.isEmpty == false }, "\(p.service.serviceLog)")
        let line = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(line.contains("\"summary\": \"Opening Todo2\"") && line.contains("\"image\": \"\(dir.path)/Default-todolist.png\""), "\(line)")
    }

    /// The app opens one of its own files (a descriptor, `OpenFile`): the frontend names its
    /// content type, and the app's `[Routes]` line for that type decides.
    @Test func aFileOpenedThroughThePortalIsRoutedByItsType() async throws {
        let p = try await PortalFixture(currentDesktop: "X-SchemeBridge:\(PortalFixture.desktop)")
        defer { p.stop() }
        for n in ["Note", "Note2"] {
            try p.service.entry("org.example.\(n).desktop", "Name=\(n)\nExec=\(try p.service.recorder(n)) %u\nMimeType=text/plain;")
        }
        try p.addSchemeBridgePortal()
        try p.service.writeConfig("[Routes]\ntext/plain from org.test.NoTalk=org.example.Note2.desktop\n[Chooser]\nCommand=\(try p.service.chooser("never", "exit 1"))\n")
        try await p.alwaysAsk("text/plain")
        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.AppChooser")
        let data = p.service.root.appendingPathComponent(".var/app/org.test.NoTalk/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let note = data.appendingPathComponent("note.txt")
        try "a note\n".write(to: note, atomically: true, encoding: .utf8)

        let code = try await Self.open(p, note.path, kind: "file")
        #expect(code == 0, "\(p.busLog)")
        let argv = await p.service.recordedArgv("Note2")
        #expect(argv?.count == 1 && argv?.first?.hasSuffix("/note.txt") == true,
                "\(argv ?? []) \((try? String(contentsOf: calls, encoding: .utf8)) ?? "")\n\(p.busLog)")
        #expect(p.service.chooserRuns("never") == 0)
        #expect(!Self.gtkDialogShown(p))
    }

    /// Anyone but the real frontend calling the backend with an app's id is refused: it would open
    /// with that app's routes and remembered choices.
    @Test func onlyTheRealPortalMaySpeakForAnApp() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(try f.recorder("Todo")) %u\nMimeType=x-scheme-handler/todolist;")
        try f.writeConfig("[Routes]\ntodolist from org.test.NoTalk=org.example.Todo.desktop\n")
        let r = try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--timeout", "300", "--dest", ServiceFixture.name,
                                     "--object-path", "/org/freedesktop/portal/desktop", "--method", "org.freedesktop.impl.portal.AppChooser.ChooseApplication",
                                     "/org/freedesktop/portal/desktop/request/1_1/t", "org.test.NoTalk", "", "['org.example.Todo']",
                                     "{'content_type': <'x-scheme-handler/todolist'>, 'uri': <'todolist://forged'>}"])
        #expect(r.status != 0 && r.stderr.contains("org.freedesktop.DBus.Error.AccessDenied") && r.stderr.contains("xdg-desktop-portal"),
                "\(r.stdout) \(r.stderr)")
        #expect(!r.stdout.contains("choice"))
    }
}
