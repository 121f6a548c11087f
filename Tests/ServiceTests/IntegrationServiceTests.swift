import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `schemebridge integrate`: on a tree with a dozen real handlers, enable routes every
/// non-reserved scheme through our entry (new ones too, as they appear), `--scheme` adds a
/// reserved one, disable leaves `mimeapps.list` byte for byte as it was; afterwards `xdg-open`,
/// `gio open` and Python's `webbrowser.open` reach the right handler through SchemeBridge.
@Suite struct IntegrationServiceTests {
    static let schemes = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "notes"]

    @Test func enableAndDisableEditExactlyTheirLines() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let ours = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/\(Contract.ownDesktopID)"), encoding: .utf8)
        try ours.write(to: f.applications.appendingPathComponent(Contract.ownDesktopID), atomically: true, encoding: .utf8)
        for s in Self.schemes { try f.entry("org.example.\(s).desktop", "Name=\(s)\nExec=/bin/true %u\nMimeType=x-scheme-handler/\(s);") }
        try f.entry("notes-b.desktop", "Name=Notes B\nExec=/bin/true %u\nMimeType=x-scheme-handler/notes;")
        try f.entry("mail.desktop", "Name=Mail\nExec=/bin/true %u\nMimeType=x-scheme-handler/mailto;", system: true)
        let list = f.configHome.appendingPathComponent("mimeapps.list")
        let original = Data("""
            # my own defaults, written by hand
            [Default Applications]
            text/html=firefox.desktop
            x-scheme-handler/notes=notes-b.desktop

            [Added Associations]
            x-scheme-handler/notes=notes-b.desktop;
            # the end

            """.utf8)
        try original.write(to: list)

        let enable = try await CLITests.cli(f, "integrate", "enable")
        #expect(enable.status == 0, "\(enable.stdout)\(enable.stderr)\n\(f.serviceLog)")
        var text = (try? String(contentsOf: list, encoding: .utf8)) ?? ""
        for s in Self.schemes where s != "notes" {
            #expect(text.contains("\nx-scheme-handler/\(s)=\(Contract.ownDesktopID)\n"), "\(s): \(text)")
        }
        #expect(text.contains("\nx-scheme-handler/notes=\(Contract.ownDesktopID);notes-b.desktop;\n") && !text.contains("mailto"), "\(text)")
        #expect(text.hasPrefix("# my own defaults, written by hand\n[Default Applications]\ntext/html=firefox.desktop\n"), "\(text)")
        // Our own resolution still uses the default that was there, never our entry.
        #expect(try await f.dbusSend("DefaultHandler", "string:notes").stdout.contains("\"notes-b.desktop\""))
        // …while the desktop's tools now name our entry, for a scheme that had a default too.
        let env = ["XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path,
                   "XDG_CONFIG_HOME": f.configHome.path, "HOME": f.root.path, "PATH": Built.programs.path + ":/usr/bin:/bin",
                   "XDG_CURRENT_DESKTOP": "", "DISPLAY": ":999"]
        for scheme in ["notes", "alpha"] {
            let xdg = try await Tools.run(["xdg-mime", "query", "default", "x-scheme-handler/\(scheme)"], environment: env)
            #expect(xdg.stdout == Contract.ownDesktopID + "\n", "\(scheme): \(xdg.stdout)\(xdg.stderr)")
            let gio = try await Tools.run(["gio", "mime", "x-scheme-handler/\(scheme)"], environment: env)
            #expect(gio.stdout.contains(": \(Contract.ownDesktopID)\n"), "\(scheme): \(gio.stdout)\(gio.stderr)")
        }
        let status = try await CLITests.cli(f, "integrate", "status", "--json")
        #expect(status.stdout.contains("\"enabled\":true") && status.stdout.contains("\"not_routed\":[\"mailto\"]"), "\(status.stdout)")

        // A reserved scheme only when named.
        #expect(try await CLITests.cli(f, "integrate", "enable", "--scheme", "mailto").stdout == "routed: mailto\n")
        // New schemes are routed as their handlers appear.
        try f.entry("fresh.desktop", "Name=Fresh\nExec=/bin/true %u\nMimeType=x-scheme-handler/fresh;")
        #expect(await Tools.eventually { ((try? String(contentsOf: list, encoding: .utf8)) ?? "").contains("x-scheme-handler/fresh=\(Contract.ownDesktopID)\n") })

        let disable = try await CLITests.cli(f, "integrate", "disable")
        #expect(disable.status == 0, "\(disable.stderr)")
        #expect(try Data(contentsOf: list) == original, "\((try? String(contentsOf: list, encoding: .utf8)) ?? "")")
        text = try await CLITests.cli(f, "integrate", "status").stdout
        #expect(text.contains("integration: off") && text.contains("routed through SchemeBridge: none"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: f.configHome.appendingPathComponent("schemebridge/integration").path))
    }

    @Test func desktopClientsReachTheHandlerThroughSchemeBridge() async throws {
        let w = try CallerThroughCLITests.world()
        defer { w.f.stop() }
        // The world's hand-written defaults go: integrate writes its own.
        try FileManager.default.removeItem(at: w.f.configHome.appendingPathComponent("mimeapps.list"))
        let enable = try await CLITests.cli(w.f, "integrate", "enable")
        #expect(enable.stdout == "routed: todolist\nrouted: vault\n", "\(enable.stdout)\(enable.stderr)")
        let (monitor, text) = try await CallerThroughCLITests.monitor(w.f)
        defer { monitor.signal(SIGTERM) }

        let xdg = try await Tools.run([w.asker, "xdg-open", "todolist://xdg-open?a=1&b=two words"], environment: w.environment)
        #expect(xdg.status == 0, "\(xdg.stdout)\(xdg.stderr)")
        #expect(await w.f.handled("todo", "todolist://xdg-open?a=1&b=two words"))
        #expect(await Tools.eventually { CallerThroughCLITests.handled(text(), url: "todolist://xdg-open?a=1&b=two words", source: "org.example.Asker") },
                "\(text())")

        let gio = try await Tools.run([w.asker, "gio", "open", "todolist://gio-open"], environment: w.environment)
        #expect(gio.status == 0, "\(gio.stdout)\(gio.stderr)")
        #expect(await w.f.handled("todo", "todolist://gio-open"))

        // Python's webbrowser hands a custom scheme to xdg-open (with a display) and returns at once;
        // the script stays until the handler has it, as an app would.
        let argv = w.f.records.appendingPathComponent("todo.argv").path
        let python = try await Tools.run([w.asker] + Clients.command("IntegrationService/open-by-webbrowser", ["todolist://webbrowser", argv]), environment: w.environment)
        #expect(python.stdout == "True\n", "\(python.stdout)\(python.stderr)")
        #expect(await w.f.handled("todo", "todolist://webbrowser"))
        #expect(await Tools.eventually { CallerThroughCLITests.handled(text(), url: "todolist://webbrowser", source: "org.example.Asker") }, "\(text())")
    }
}
