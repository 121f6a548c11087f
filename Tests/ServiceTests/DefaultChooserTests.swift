import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The shipped dialog (`scripts/schemebridge-dialog`, from the source tree) asked by the service
/// on a private Xvfb: the chooser comes up on the screen, synthesized keys (xdotool) pick, and
/// "Always use this for …" (Alt+A) remembers the pick.
@Suite struct DefaultChooserTests {
    /// A display, a fixture whose service uses it with the shipped chooser on its PATH, the
    /// `todo` handlers, and an app of its own that asks.
    struct Screen {
        let x: Xvfb
        let f: ServiceFixture
        let asker: String
        let xdotool: String

        /// `environment`: more variables for the service (and so for the dialogs it runs);
        /// `unset`: variables it runs without.
        init(environment: [String: String] = [:], unset: [String] = []) throws {
            xdotool = try Tools.path(of: "xdotool")
            x = try Xvfb(width: 800, height: 600)
            f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "WAYLAND_DISPLAY": ""].merging(environment) { $1 },
                                   unsetEnvironment: unset)
            try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-dialog").path,
                                                       withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path)
            try f.installTodoHandlers()
            asker = try f.pythonNamed("asker-app")
        }

        func stop() {
            f.stop()
            x.stop()
        }

        /// The dialog titled `title` mapped now (ours, or zenity's file chooser), once it is drawn
        /// on the screen (over half its size: a file chooser may be larger than the screen).
        func dialog(_ title: String = "Open With") async throws -> TopLevelWindow? {
            // Searched again until found: `xdotool search` exits with an X error (BadWindow) when a
            // window goes away while it looks, so `--sync` alone can end early.
            var found: UInt?
            _ = try await Tools.eventually {
                let run = try await Tools.run([xdotool, "search", "--onlyvisible", "--name", "^\(title)$"], environment: ["DISPLAY": x.display],
                                              timeout: Tools.eventCeiling)
                found = run.stdout.split(separator: "\n").first.flatMap { UInt($0) }
                return found != nil
            }
            guard let id = found else { return nil }
            var window: TopLevelWindow?
            _ = await Tools.eventually {
                window = try? x.topLevelWindows().first { $0.id == id && $0.isMapped && $0.width > 100 && $0.height > 100 }
                return window != nil
            }
            guard let w = window else { return nil }
            let drawn = await x.watch { shot in shot.boundingBox().map { $0.width >= w.width / 2 && $0.height >= w.height / 2 } ?? false }
            return drawn == nil ? nil : w
        }

        /// Focuses `window` and types `keys` (xdotool key names).
        func type(_ keys: [String], into window: TopLevelWindow) async throws {
            let env = ["DISPLAY": x.display]
            #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(window.id)], environment: env).status == 0)
            #expect(try await Tools.run([xdotool, "key", "--delay", "100"] + keys, environment: env).status == 0)
        }
    }

    @Test func theChooserIsShownAndAKeyPicks() async throws {
        let s = try Screen()
        defer { s.stop() }
        let opened = Task { try await s.f.open("todo://chosen-on-screen", from: s.asker) }
        let w = try #require(try await s.dialog(), "no chooser came up\n\(s.f.serviceLog)")
        // Down to the second application (Beta), Return opens it.
        try await s.type(["Down", "Return"], into: w)
        #expect(try await opened.value == "opened b.desktop")
        #expect(await s.f.handled("b", "todo://chosen-on-screen"))
        #expect(try await CLITests.cli(s.f, "choices").stdout.isEmpty, "once is not always")
    }

    /// A minimal session (no `LANG`, no `LC_*`: the C locale, as under `env -i`): the chooser
    /// comes up, and a key picks (zenity used to refuse its labels there, and that counted as a cancel).
    @Test func withoutALocaleTheChooserIsShownAndAKeyPicks() async throws {
        let s = try Screen(unset: ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES"])
        defer { s.stop() }
        let opened = Task { try await s.f.open("todo://chosen-without-lang", from: s.asker) }
        let w = try #require(try await s.dialog(), "no chooser came up\n\(s.f.serviceLog)")
        try await s.type(["Down", "Return"], into: w)
        #expect(try await opened.value == "opened b.desktop")
        #expect(await s.f.handled("b", "todo://chosen-without-lang"))
    }

    /// The default comes first and is selected: Return opens it.
    @Test func enterOpensTheDefault() async throws {
        let s = try Screen()
        defer { s.stop() }
        let opened = Task { try await s.f.open("todo://open-at-once", from: s.asker) }
        let w = try #require(try await s.dialog(), "no chooser came up\n\(s.f.serviceLog)")
        try await s.type(["Return"], into: w)
        #expect(try await opened.value == "opened a.desktop")
        #expect(await s.f.handled("a", "todo://open-at-once"))
    }

    @Test func alwaysIsRemembered() async throws {
        let s = try Screen()
        defer { s.stop() }
        let opened = Task { try await s.f.open("todo://always", from: s.asker) }
        let w = try #require(try await s.dialog(), "no chooser came up\n\(s.f.serviceLog)")
        try await s.type(["Down", "alt+a", "alt+o"], into: w)
        #expect(try await opened.value == "opened b.desktop")
        #expect(try await CLITests.cli(s.f, "choices").stdout == "\(s.asker)\ttodo\tb.desktop\n")
    }

    /// Issue 21, item 5: entries whose names are options of a dialog (`--display=` another
    /// screen, `--bogus`) are rows of the list; the dialog comes up on the session's display, a
    /// key picks such a row, and an id that starts with `-` is not offered at all.
    @Test func entryNamesAreRowsNeverOptions() async throws {
        let s = try Screen()
        defer { s.stop() }
        let other = try Xvfb(width: 640, height: 480)
        defer { other.stop() }
        try s.f.entry("c.desktop", "Name=--display=\(other.display)\nExec=\(try s.f.recorder("c")) %u\nMimeType=x-scheme-handler/todo;")
        try s.f.entry("d.desktop", "Name=--bogus\nExec=\(try s.f.recorder("d")) %u\nMimeType=x-scheme-handler/todo;")
        try s.f.entry("--list.desktop", "Name=Dash\nExec=\(try s.f.recorder("dash")) %u\nMimeType=x-scheme-handler/todo;")
        let opened = Task { try await s.f.open("todo://named-like-options", from: s.asker) }
        let w = try #require(try await s.dialog(), "no chooser came up on the session's display\n\(s.f.serviceLog)")
        #expect(try other.topLevelWindows().contains { $0.isMapped } == false, "the dialog went to the other display")
        // Alpha, Beta, then "--display=…": the third row opens c.desktop.
        try await s.type(["Down", "Down", "Return"], into: w)
        #expect(try await opened.value == "opened c.desktop")
        #expect(await s.f.handled("c", "todo://named-like-options"))
        // The fourth row is "--bogus" (and no fifth, for "--list.desktop"): End picks it.
        let again = Task { try await s.f.open("todo://bogus", from: s.asker) }
        let w2 = try #require(try await s.dialog(), "no chooser came up for todo://bogus\n\(s.f.serviceLog)")
        try await s.type(["End", "Return"], into: w2)
        #expect(try await again.value == "opened d.desktop")
        #expect(await s.f.handled("d", "todo://bogus"))
        #expect(!FileManager.default.fileExists(atPath: s.f.records.appendingPathComponent("dash.argv").path))
    }
}
