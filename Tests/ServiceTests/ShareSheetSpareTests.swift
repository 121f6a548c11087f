import Foundation
import Testing
import DBusTestSupport

/// The share sheet the service keeps started ahead (`SheetSpare`, `[Chooser] SpareSheet=`): a
/// share shows that process's window, with the caller's activation token on it, and a new one
/// is started after each use; one that ends by itself is started again after a growing pause;
/// none without a display or with `SpareSheet=false` (the sheet is then started per share).
@Suite struct ShareSheetSpareTests {
    /// The pids the service logged starting sheets ahead with, in order.
    static func spares(_ f: ServiceFixture) -> [Int32] {
        f.serviceLog.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "started ahead of the next question (pid ") else { return nil }
            return Int32(line[r.upperBound...].prefix { $0.isNumber })
        }
    }

    /// A fixture on its own Xvfb whose PATH has `sheet` as `schemebridge-dialog` (the source
    /// tree's when nil), and a target taking text.
    static func fixture(_ x: Xvfb?, sheet: String? = nil, config: String? = nil) throws -> ServiceFixture {
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x?.display ?? "", "WAYLAND_DISPLAY": ""])
        if let config { try f.writeConfig(config) }
        let path = f.bin.appendingPathComponent("schemebridge-dialog").path
        if let sheet {
            try sheet.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        } else {
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path)
        }
        try ShareTests.entry(f, "postcard.desktop", types: "text/plain;", program: try ShareTests.target(f, "postcard"))
        return f
    }

    @Test func theSheetStartedAheadShowsTheShareWithTheCallersTokenAndIsReplaced() async throws {
        let xdotool = try Tools.path(of: "xdotool")
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let f = try Self.fixture(x)
        defer { f.stop() }
        // The service starts it before it serves its name: an answered call finds it started.
        _ = try await f.dbusSend("CanOpenURL", "string:x:y")
        let first = try #require(Self.spares(f).first, "no sheet started ahead\n\(f.serviceLog)")
        let shared = ShareSheetServiceTests.share(f, #"[{"text": "a line of text"}]"#, #"{"activation-token": "sheet-token_TIME42"}"#)
        let id = try #require(try await ShareSheetServiceTests.sheet(on: x, titled: "Share from sharer.py"), "no sheet came up\n\(f.serviceLog)")
        // The window is the process started ahead, and carries the caller's token.
        #expect(try x.cardinalProperty("_NET_WM_PID", of: id) == Int(first), "\(f.serviceLog)")
        #expect(try x.textProperty("_NET_STARTUP_ID", of: id) == "sheet-token_TIME42")
        let env = ["DISPLAY": x.display]
        #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(id)], environment: env).status == 0)
        #expect(try await Tools.run([xdotool, "key", "--delay", "100", "Return"], environment: env).status == 0)
        let (code, target) = try await shared.value
        #expect(code == 0 && target == "postcard.desktop:share", "\(target)\n\(f.serviceLog)")
        // Used once: the next share gets another process.
        #expect(await Tools.eventually { Self.spares(f).count >= 2 }, "\(f.serviceLog)")
        #expect(Self.spares(f).dropFirst().first != first)
    }

    /// The sheet started ahead keeps off the accessibility bus while it waits for its question:
    /// waiting outside GTK's main loop, it could answer no screen reader there, and each would
    /// wait out its calls' timeout on it. Shown, it is there with its window, for a screen reader.
    @Test func theSheetStartedAheadJoinsTheAccessibilityBusWhenItIsShown() async throws {
        let xdotool = try Tools.path(of: "xdotool")
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let f = try Self.fixture(x)
        defer { f.stop() }
        // Up before the service and its sheet start (GTK looks for it as it starts).
        let a11y = try await AccessibilityBus(sessionBus: f.bus.address, display: x.display)
        defer { a11y.stop() }
        _ = try await f.dbusSend("CanOpenURL", "string:x:y")
        let spare = try #require(Self.spares(f).first, "no sheet started ahead\n\(f.serviceLog)")
        // Ready, and waiting for its question: reading standard input (`read`, descriptor 0).
        #expect(await Tools.eventually { (try? String(contentsOfFile: "/proc/\(spare)/syscall", encoding: .utf8))?.hasPrefix("0 0x0 ") == true },
                "the sheet started ahead never waited for its question")
        let waiting = try await a11y.applications()
        #expect(!waiting.contains(spare), "the waiting sheet is on the accessibility bus: \(waiting)")
        let shared = ShareSheetServiceTests.share(f, #"[{"text": "a line of text"}]"#)
        let id = try #require(try await ShareSheetServiceTests.sheet(on: x, titled: "Share from sharer.py"), "no sheet came up\n\(f.serviceLog)")
        #expect(try x.cardinalProperty("_NET_WM_PID", of: id) == Int(spare), "\(f.serviceLog)")
        let tree = try await a11y.tree(app: "schemebridge-dialog", title: "Share from sharer.py")
        #expect(tree.contains("push button\tCancel") && tree.contains { $0.hasPrefix("list item\t") }, "\(tree)")
        #expect(try await Tools.run([xdotool, "windowfocus", "--sync", String(id)], environment: ["DISPLAY": x.display]).status == 0)
        #expect(try await Tools.run([xdotool, "key", "Escape"], environment: ["DISPLAY": x.display]).status == 0)
        #expect(try await shared.value.code == 1, "\(f.serviceLog)")
    }

    /// A sheet that ends without being asked (it cannot start, its display went away) is started
    /// again after 1 s, then 2, then 4 — never in a tight loop.
    @Test func aSheetThatEndsUnaskedIsStartedAgainAfterAGrowingPause() async throws {
        let x = try Xvfb(width: 320, height: 240)
        defer { x.stop() }
        let starts = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-starts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: starts) }
        let f = try Self.fixture(x, sheet: "#!/bin/sh\necho \"$*\" >> '\(starts.path)'\nexit 3\n")
        defer { f.stop() }
        _ = try await f.dbusSend("CanOpenURL", "string:x:y")
        #expect(await Tools.eventually { f.serviceLog.contains("another in 4 s") }, "\(f.serviceLog)")
        let log = f.serviceLog
        let pauses = ["another in 1 s", "another in 2 s", "another in 4 s"].compactMap { log.range(of: $0)?.lowerBound }
        #expect(pauses.count == 3 && pauses == pauses.sorted(), "\(log)")
        #expect(log.contains("ended by itself (status 3)"))
        let lines = ((try? String(contentsOf: starts, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.count >= 3 && lines.allSatisfy { $0 == "--spare" }, "\(lines)")
    }

    /// `[Chooser] SpareSheet=false`: nothing is started ahead; a share starts the sheet then.
    @Test func spareSheetFalseStartsTheSheetPerShare() async throws {
        let x = try Xvfb(width: 320, height: 240)
        defer { x.stop() }
        let starts = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-starts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: starts) }
        let sheet = "#!/bin/sh\necho \"start $*\" >> '\(starts.path)'\nhead -n 1 > /dev/null\n"
            + "echo '{\"version\":1,\"answer\":\"chosen\",\"id\":\"postcard.desktop:share\",\"always\":false}'\n"
        let f = try Self.fixture(x, sheet: sheet, config: "[Chooser]\nSpareSheet=false\n")
        defer { f.stop() }
        let out = try await ShareTests.share(f, #"[{"text": "a line of text"}]"#)
        #expect((ShareTests.responses(out).first?["results"] as? [String: String])?["target"] == "postcard.desktop:share", "\(out)\n\(f.serviceLog)")
        #expect(Self.spares(f).isEmpty, "\(f.serviceLog)")
        #expect((try? String(contentsOf: starts, encoding: .utf8)) == "start \n")
    }

    /// No display: no sheet is started ahead (nor could one be shown).
    @Test func noSheetIsStartedAheadWithoutADisplay() async throws {
        let f = try Self.fixture(nil, sheet: "#!/bin/sh\nexit 3\n")
        defer { f.stop() }
        _ = try await f.dbusSend("CanOpenURL", "string:x:y")
        #expect(Self.spares(f).isEmpty && !f.serviceLog.contains("ended by itself"), "\(f.serviceLog)")
    }
}
