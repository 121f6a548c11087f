import Foundation
import Testing
import DBusTestSupport

/// The shipped chooser's command line to zenity (a recording stand-in first on `PATH`): buttons
/// labelled without literal underscores, and Open with no row selected opens the default.
@Suite struct ChooserScriptTests {
    @Test func zenityGetsPlainLabelsAndOpenWithoutSelectionIsTheDefault() async throws {
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": ":99", "WAYLAND_DISPLAY": ""])
        defer { f.stop() }
        try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-chooser").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-chooser").path)
        // zenity as the user pressing Open at once: nothing selected, exit 0, no output.
        let saw = f.records.appendingPathComponent("zenity.argv").path
        let zenity = f.bin.appendingPathComponent("zenity").path
        try "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '\(saw)'\ncat > /dev/null\nexit 0\n".write(toFile: zenity, atomically: true, encoding: .utf8)
        chmod(zenity, 0o755)
        try f.installTodoHandlers()
        let asker = try f.pythonNamed("asker-app")
        #expect(try await f.open("todo://pick-nothing", from: asker) == "opened a.desktop")
        #expect(await f.handled("a", "todo://pick-nothing"))
        let argv = try String(contentsOfFile: saw, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(argv.contains("--ok-label=Open") && argv.contains("--extra-button=_Always…"), "\(argv)")
        #expect(!argv.contains { $0.hasPrefix("--ok-label=_") }, "\(argv)")
    }
}
