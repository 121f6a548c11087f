import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 39, item 4: the `parent-window` option (`x11:XID` in hexadecimal, `wayland:HANDLE`
/// exported with xdg-foreign) of every method that can show a dialog reaches the dialog's
/// request, with the caller's activation token; a value of neither form is `InvalidArgs` at once
/// (the CLI: exit 1 with the service's words), and no dialog is shown for it. The chooser here is
/// `[Chooser] Command=` speaking the dialogs' message (`Clients/Support/line-chooser.py`, which
/// records the request's `parent-window`).
@Suite struct ParentWindowServiceTests {
    /// The `parent-window` lines chooser `name` saw, in order.
    static func parents(_ f: ServiceFixture, _ name: String) -> [String] {
        f.chooserSaw(name).split(separator: "\n").compactMap { line in
            line.hasPrefix("SCHEMEBRIDGE_CHOOSER_PARENT_WINDOW=") ? String(line.dropFirst("SCHEMEBRIDGE_CHOOSER_PARENT_WINDOW=".count)) : nil
        }
    }

    @Test func everyMethodThatCanShowADialogHandsTheCallersWindowToIt() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.entry("md.desktop", "Name=Marker\nExec=\(try f.recorder("md")) %f\nMimeType=text/markdown;")
        try ShareTests.entry(f, "postcard.desktop", types: "text/plain;", program: try ShareTests.target(f, "postcard"))
        let tokens = f.records.appendingPathComponent("tokens").path
        // The first candidate, and the token the chooser was given.
        let chooser = try f.chooser("first", "printf '%s\\n' \"$XDG_ACTIVATION_TOKEN\" >> '\(tokens)'; head -n 1 | cut -f 1")
        try f.writeConfig("[Chooser]\nCommand=\(chooser)\n")

        // OpenURLWithOptions: the hexadecimal id as portals write it, in the one form the message carries.
        let opened = try await f.gdbus("OpenURLWithOptions", "todo://attached",
                                       "{'ask': <true>, 'parent-window': <'x11:0x1A00003'>, 'activation-token': <'caller-token_TIME7'>}")
        #expect(opened.status == 0 && opened.stdout.contains("'handler': <'a.desktop'>"), "\(opened.stdout)\(opened.stderr)\n\(f.serviceLog)")
        #expect(Self.parents(f, "first") == ["x11:1a00003"], "\(f.chooserSaw("first"))")
        #expect((try? String(contentsOfFile: tokens, encoding: .utf8)) == "caller-token_TIME7\n")

        // OpenFile (the CLI's open --ask FILE): a Wayland handle as given.
        let doc = f.root.appendingPathComponent("notes.md")
        try "# notes\n".write(to: doc, atomically: true, encoding: .utf8)
        let file = try await CLITests.cli(f, "open", "--ask", "--parent-window", "wayland:0e4d1c9a-5d2f", doc.path)
        #expect(file.status == 0, "\(file.stdout)\(file.stderr)")
        #expect(Self.parents(f, "first").last == "wayland:0e4d1c9a-5d2f", "\(f.chooserSaw("first"))")

        // Share (the CLI's share --ask): the sheet.
        let shared = try await CLITests.cli(f, "share", "--ask", "--parent-window", "x11:2a", "--text", "a line")
        #expect(shared.status == 0, "\(shared.stdout)\(shared.stderr)\n\(f.serviceLog)")
        #expect(await Tools.eventually { Self.parents(f, "first").count == 3 }, "\(f.chooserSaw("first"))\n\(f.serviceLog.suffix(2000))")
        #expect(Self.parents(f, "first").last == "x11:2a", "\(f.chooserSaw("first"))")
    }

    /// PickDocument (the CLI's pick): the picker, cancelled (exit 5) — it was asked all the same.
    /// A service of its own: the config is read when it starts (an edit under a running service
    /// takes effect within 200 ms, which a call made at once could beat).
    @Test func thePickerIsHandedTheCallersWindowToo() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("cancelling", "exit 1"))\n")
        let picked = try await CLITests.cli(f, "pick", "--type", "text/plain", "--parent-window", "x11:2b")
        #expect(picked.status == 5, "\(picked.stdout)\(picked.stderr)\n\(f.serviceLog)")
        #expect(Self.parents(f, "cancelling") == ["x11:2b"], "\(f.chooserSaw("cancelling"))")
    }

    /// A `Chooser1` client on the bus finds it in the `Choose` context.
    @Test func aChooserOnTheBusFindsTheParentWindowInItsContext() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try f.writeConfig("[Chooser]\nBus=true\n")
        let client = try await ChooserTests.chooser1Client(f, answers: ["b.desktop"])
        defer { client.signal(SIGTERM) }
        let r = try await f.gdbus("OpenURLWithOptions", "todo://bus", "{'ask': <true>, 'parent-window': <'wayland:handle-of-the-caller'>}")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(ChooserTests.chooser1Log(f).contains(#""parent-window": "wayland:handle-of-the-caller""#), "\(ChooserTests.chooser1Log(f))")
    }

    /// Neither form: `InvalidArgs` naming the option and the two forms, before any dialog shows;
    /// a value of another type too. The CLI exits 1 (usage) with the service's words.
    @Test func aValueOfNeitherFormIsInvalidArgsAndShowsNoDialog() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        try ShareTests.entry(f, "postcard.desktop", types: "text/plain;", program: try ShareTests.target(f, "postcard"))
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("never", "head -n 1 | cut -f 1"))\n")
        for bad in ["x11:zz", "x11:0", "wayland:", "wayland:two words", "mir:7", "0x1a00003"] {
            let r = try await f.gdbus("OpenURLWithOptions", "todo://bad", "{'ask': <true>, 'parent-window': <'\(bad)'>}")
            #expect(r.status != 0 && r.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs")
                    && r.stderr.contains("option 'parent-window' must be 'x11:XID'"), "\(bad): \(r.stdout)\(r.stderr)")
        }
        let typed = try await f.gdbus("OpenURLWithOptions", "todo://bad", "{'ask': <true>, 'parent-window': <uint32 42>}")
        #expect(typed.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs") && typed.stderr.contains("parent-window"), "\(typed.stderr)")
        for args in [["share", "--text", "a line", "--parent-window", "x11:"], ["pick", "--type", "text/plain", "--parent-window", "mir:1"],
                     ["open", "--ask", "--parent-window", "wayland:a b", "todo://bad"]] {
            let r = try await Tools.run([try Built.executable("schemebridge")] + args,
                                        environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
            #expect(r.status == 1 && r.stderr.contains("option 'parent-window' must be"), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(f.chooserRuns("never") == 0, "\(f.chooserSaw("never"))")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("a.argv").path))
    }
}
