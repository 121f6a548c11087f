import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// The shipped chooser (`scripts/schemebridge-chooser`, from the source tree) on a private Xvfb:
/// zenity's list comes up on the screen, and a synthesized key (xdotool) picks.
@Suite struct DefaultChooserTests {
    @Test func zenitysListIsShownAndAKeyPicks() async throws {
        _ = try Tools.path(of: "zenity")
        let xdotool = try Tools.path(of: "xdotool")
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "WAYLAND_DISPLAY": ""])
        defer { f.stop() }
        try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-chooser").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-chooser").path)
        try f.installTodoHandlers()
        let asker = try f.pythonNamed("asker-app")
        let opened = Task { try await f.open("todo://chosen-on-screen", from: asker) }

        // The dialog is mapped, and it is on the screen (not black there).
        var window: TopLevelWindow?
        #expect(await Tools.eventually {
            window = try? x.topLevelWindows().first { $0.resClass == "Zenity" && $0.isMapped && $0.width > 100 && $0.height > 100 }
            return window != nil
        }, "no zenity window came up: \((try? x.topLevelWindows()) ?? [])\n\(f.serviceLog)")
        let w = try #require(window)
        let drawn = await x.watch { shot in
            guard let box = shot.boundingBox() else { return false }
            return box.width >= w.width / 2 && box.height >= w.height / 2
        }
        #expect(drawn != nil, "the list is not on the screen")

        // Down to the second application (Beta), Return to open it.
        let env = ["DISPLAY": x.display]
        #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(w.id)], environment: env).status == 0)
        #expect(try await Tools.run([xdotool, "key", "--delay", "100", "Down", "Return"], environment: env).status == 0)
        #expect(try await opened.value == "opened b.desktop")
        #expect(await f.handled("b", "todo://chosen-on-screen"))
        #expect(await Tools.eventually { (try? x.topLevelWindows().contains { $0.resClass == "Zenity" && $0.isMapped }) == false })
    }
}
