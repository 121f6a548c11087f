import Foundation
import Testing
import DBusTestSupport

extension AccessibilityBus {
    /// Puts `path` into GTK file chooser `w` — application `app`'s window titled `title` on `x` —
    /// and chooses it, as a user does with the keyboard: through the clipboard (xclip holds it
    /// until this returns; keys typed one by one were lost beside CPU hogs), `select` (ctrl+L: the
    /// location field; ctrl+A: a save dialog's name), ctrl+V, Return. Each key goes once, when the
    /// dialog, read as a screen reader reads it (this bus, up before `app` started), shows it
    /// ready: a text field focused before ctrl+A (the name field built) or after ctrl+L (the
    /// location field open), the path in it before Return (keys sent while GTK was still building
    /// the field were lost). `folder` holds the clipboard's file.
    func choose(_ path: String, in w: TopLevelWindow, of app: String, titled title: String, on x: Xvfb, selecting select: String,
                folder: URL) async throws {
        let env = ["DISPLAY": x.display]
        let xdotool = try Tools.path(of: "xdotool")
        let pathFile = folder.appendingPathComponent("path.txt")
        try path.write(to: pathFile, atomically: true, encoding: .utf8)
        let clipboard = try Tools.spawn(["xclip", "-quiet", "-selection", "clipboard", "-i", pathFile.path], environment: env)
        defer { clipboard.terminate() }
        #expect(await Tools.eventually { (try? await Tools.run(["xclip", "-o", "-selection", "clipboard"], environment: env))?.stdout == path },
                "xclip never held the path")
        func press(_ key: String) async throws {
            #expect(try await Tools.run([xdotool, "key", "--delay", "300", key], environment: env).status == 0)
        }
        #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(w.id)], environment: env).status == 0)
        if select == "ctrl+a" { try await focusedText(app: app, title: title) }
        try await press(select)
        try await focusedText(app: app, title: title)
        try await press("ctrl+v")
        try await focusedText(app: app, title: title, holding: path)
        try await press("Return")
        #expect(await Tools.eventually { (try? x.topLevelWindows().contains { $0.id == w.id && $0.isMapped }) == false },
                "the dialog is still up after Return")
    }
}
