import DBusTestSupport
import Foundation
import Glibc
import Testing

/// "Always" is for an app, not for an interpreter (issue 37, item 3), end to end: with Debian 12's
/// `python3.11.desktop` (`Exec=/usr/bin/python3.11`) installed, a Python script is known by its
/// interpreter, which every script shares. So its chooser may not offer "always" and names the
/// script; an "always" answered anyway is not remembered; and `[Routes]` lines or remembered
/// choices keyed on the interpreter decide nothing for another script.
@Suite struct SharedIdentityServiceTests {
    /// A script that opens `argv[1]` with `ask` (`argv[2]` = `ask`) or plainly (`quiet`) and prints
    /// `opened <handler>` or `error <name>`.
    static let script = """
        import dbus, os, sys
        N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
        svc = dbus.Interface(dbus.bus.BusConnection(os.environ['SB_BUS']).get_object(N, O), N)
        try:
            print('opened', svc.OpenURLWithOptions(sys.argv[1], {'ask': sys.argv[2] == 'ask'}, timeout=600)['handler'])
        except dbus.DBusException as e:
            print('error', e.get_dbus_name().split('.')[-1], e.get_dbus_message())

        """

    @Test func alwaysIsNotOfferedToAPythonScriptAndNothingKeyedOnPythonDecides() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.installTodoHandlers()
        // `memo` is for the routes (a route decides before a chooser would be asked).
        try f.entry("m1.desktop", "Name=Memo One\nExec=\(try f.recorder("m1")) %u\nMimeType=x-scheme-handler/memo;")
        try f.entry("m2.desktop", "Name=Memo Two\nExec=\(try f.recorder("m2")) %u\nMimeType=x-scheme-handler/memo;")
        let python = try #require(realpath(Tools.systemPython, nil).map { p in defer { free(p) }; return String(cString: p) })
        try f.entry("python3.11.desktop", "Name=Python (v3.11)\nExec=\(python)\nTerminal=true\nNoDisplay=true\n", system: true)
        let notes = f.bin.appendingPathComponent("notes.py").path, other = f.bin.appendingPathComponent("other.py").path
        for path in [notes, other] { try Self.script.write(toFile: path, atomically: true, encoding: .utf8) }
        // What a user, or an earlier version, may have left keyed on the interpreter: routes and a remembered choice.
        let programName = URL(fileURLWithPath: python).lastPathComponent
        try f.writeConfig("""
            [Chooser]
            Command=\(try f.chooser("always-beta", "printf 'b.desktop\\talways\\n'"))
            [Routes]
            memo from \(programName)=m2.desktop
            memo from \(python)=m2.desktop
            """)
        func run(_ script: String, _ url: String, _ mode: String) async throws -> String {
            let r = try await Tools.run([Tools.systemPython, script, url, mode], environment: Clients.serviceNames.merging(["SB_BUS": f.bus.address]) { $1 })
            return (r.stdout + r.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        // notes.py asks: the chooser is told it cannot remember, and names the script.
        #expect(try await run(notes, "todo://note", "ask") == "opened b.desktop")
        let saw = f.chooserSaw("always-beta")
        #expect(saw.contains("SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER=0\n") && saw.contains("SCHEMEBRIDGE_CHOOSER_CALLER_NAME=notes.py\n"), "\(saw)")
        // The "always" it answered anyway is not kept: other.py (a private note's script) is asked again…
        #expect(try await run(other, "todo://private-note", "ask") == "opened b.desktop")
        #expect(f.chooserRuns("always-beta") == 2, "\(f.chooserSaw("always-beta"))")
        // …and, not asking, it gets the default: no remembered choice, and no route keyed on the
        // interpreter (by its entry's id or its path) decides.
        #expect(try await run(other, "todo://private-note", "quiet") == "opened a.desktop", "\(f.serviceLog.suffix(2000))")
        #expect(try await run(other, "memo://private-note", "quiet") == "opened m1.desktop", "\(f.serviceLog.suffix(2000))")
        let choices = (try? String(contentsOf: f.configHome.appendingPathComponent("schemebridge/choices"), encoding: .utf8)) ?? ""
        #expect(!choices.contains("python"), "\(choices)")
    }
}
