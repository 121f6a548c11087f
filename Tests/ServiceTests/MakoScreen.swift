import DBusTestSupport
import Foundation
import Glibc
import Testing

/// A Wayland desktop's notifications for one test: mako (a notification server drawn as a
/// layer-shell surface) on a private headless sway, on the test's bus, started in a bare session
/// (no `LANG`, no theme); the screen read with grim (wlr-screencopy). mako, unlike Debian's
/// notification-daemon, takes a popup off the screen on `CloseNotification`, so a withdrawal can
/// be seen; and it reads the call through sd-bus, which refuses what the specification does not
/// allow (a hint two variants deep, say).
final class MakoScreen {
    /// mako's default background colour: a popup shows as many pixels of it.
    static let popupColour: [UInt8] = [0x28, 0x55, 0x77]

    let sway: Sway
    let server: ChildProcess
    let environment: [String: String]
    let log: String
    private let grim: String
    private let screen: URL

    /// Starts sway and mako (on `busAddress`, with `environment` less its locale, theme and
    /// display), `records` holding mako's log and the screenshots; returns once mako owns
    /// `org.freedesktop.Notifications` — after checking that nothing in mako's colour was on the
    /// screen before it.
    init(environment base: [String: String], busAddress: String, records: URL) async throws {
        let mako = try Tools.path(of: "mako")
        grim = try Tools.path(of: "grim")
        sway = try Sway()
        var env = base.filter { !$0.key.hasPrefix("LC_") && !["LANG", "LANGUAGE", "GTK_THEME", "DISPLAY"].contains($0.key) }
        env["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        env.merge(sway.clientEnvironment) { _, new in new }
        environment = env
        screen = records.appendingPathComponent("wayland-screen.png")
        log = records.appendingPathComponent("mako.log").path
        do {
            let before = await Self.shot(grim, screen, env)
            let empty = try #require(before, "grim could not read sway's screen:\n\(sway.log.suffix(1500))")
            #expect(WaylandLaunchFeedbackTests.count(Self.popupColour, in: empty) == 0, "nothing in mako's colour before mako")
            server = try ChildProcess([mako], environment: env, stdout: log, stderr: log)
        } catch {
            sway.stop()
            throw error
        }
        let up = await Tools.eventually {
            (try? await Tools.run(["gdbus", "call", "--address", busAddress, "--dest", "org.freedesktop.Notifications", "--object-path",
                                   "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.GetServerInformation"]))?.stdout.contains("mako") == true
        }
        if !up { stop() }
        try #require(up, "mako did not take the notifications' name: \(makoLog)")
    }

    var makoLog: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    private static func shot(_ grim: String, _ screen: URL, _ env: [String: String]) async -> Screenshot? {
        guard (try? await Tools.run([grim, screen.path], environment: env))?.status == 0 else { return nil }
        return try? WaylandLaunchFeedbackTests.readPNG(screen.path)
    }

    /// The screen now, with the box of what differs from its top-left corner (sway's background,
    /// far from mako's corner) when over 2,000 pixels show mako's colour: a popup.
    func currentPopup() async -> (shot: Screenshot, box: (x: Int, y: Int, width: Int, height: Int))? {
        guard let now = await Self.shot(grim, screen, environment), WaylandLaunchFeedbackTests.count(Self.popupColour, in: now) > 2000,
              let box = now.boundingBox(notMatching: now.pixel(0, 0)) else { return nil }
        return (now, box)
    }

    /// Waits for a popup, checks it is in mako's corner (the top right) and saves it, cut to its
    /// box, as `.build/test-output/<name>`.
    func picture(as name: String) async throws {
        var drawn: (shot: Screenshot, box: (x: Int, y: Int, width: Int, height: Int))? = nil
        #expect(await Tools.eventually {
            drawn = await currentPopup()
            return drawn != nil
        }, "no popup on sway's screen: \(makoLog)")
        let popup = try #require(drawn)
        #expect(popup.box.x > popup.shot.width / 2 && popup.box.y + popup.box.height < popup.shot.height / 2, "mako's corner, the top right: \(popup.box)")
        let folder = Built.packageRoot.appendingPathComponent(".build/test-output")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await DialogSessionScreenshotTests.crop(screen, popup.box, to: folder.appendingPathComponent(name))
    }

    /// Waits until no popup is on the screen.
    func waitUntilNoPopup() async -> Bool {
        await Tools.eventually { await currentPopup() == nil }
    }

    func stop() {
        kill(server.pid, SIGTERM)
        sway.stop()
    }
}
