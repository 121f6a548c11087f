import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 39, item 4, on real displays: the shipped dialog (`scripts/schemebridge-dialog`, the
/// one the service keeps started ahead) asked through `OpenURLWithOptions` with `ask`, the
/// caller's `parent-window` and its activation token.
///
/// - X11 (Xvfb): the caller's window is a real X window the test maps (`splash-test-window`);
///   the chooser's `WM_TRANSIENT_FOR` is that window and its `_NET_STARTUP_ID` the token. A window
///   that does not exist leaves the chooser unattached, shown all the same, and the log says why.
/// - Wayland (sway 1.7 headless: weston 10 has no xdg-foreign): the caller is a native client
///   (`Clients/Wayland/wl-activation.c`, `export`) that maps a toplevel, gets a token from the
///   compositor and exports its toplevel with `zxdg_exporter_v2`. The chooser comes up (sway's
///   tree shows it) and, in its protocol log (`WAYLAND_DEBUG`), imports that handle
///   (`zxdg_importer_v1.import`) and sets itself as its child (`set_parent_of`), which the
///   compositor did not refuse (no `destroyed`, which it sends for a handle it never made: the
///   forged case shows it does). What is not observable here: sway 1.7 does not show a
///   toplevel's parent in its tree, so that the compositor stacks it over the caller is not checked.
@Suite struct DialogParentScreenTests {
    @Test func onX11TheChooserIsTransientForTheCallersWindowAndCarriesItsToken() async throws {
        let s = try DefaultChooserTests.Screen()
        defer { s.stop() }
        let out = s.f.records.appendingPathComponent("caller-window.out")
        let caller = try ChildProcess([try Built.executable("splash-test-window"), "--wm-class", "caller-app", "--geometry", "300x200+20+20"],
                                      environment: ["DISPLAY": s.x.display], stdout: out.path, stderr: out.path)
        defer { caller.terminate() }
        var xid: UInt?
        _ = await Tools.eventually {
            xid = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").first { $0.hasPrefix("mapped 0x") }
                .flatMap { UInt($0.dropFirst("mapped 0x".count), radix: 16) }
            return xid != nil
        }
        let id = try #require(xid, "the caller's window never mapped")
        // As a portal writes it: the id in hexadecimal, without 0x.
        let opened = Task {
            try await s.f.gdbus("OpenURLWithOptions", "todo://attached",
                                "{'ask': <true>, 'parent-window': <'x11:\(String(id, radix: 16))'>, 'activation-token': <'caller-token_TIME42'>}")
        }
        let w = try #require(try await s.dialog(), "no chooser came up\n\(s.f.serviceLog)")
        #expect(try s.x.cardinalProperty("WM_TRANSIENT_FOR", of: w.id) == Int(id), "\(s.f.serviceLog.suffix(2000))")
        #expect(try s.x.textProperty("_NET_STARTUP_ID", of: w.id) == "caller-token_TIME42")
        try await s.type(["Return"], into: w)
        let r = try await opened.value
        #expect(r.status == 0 && r.stdout.contains("'handler': <'a.desktop'>"), "\(r.stdout)\(r.stderr)")

        // A window that does not exist: shown all the same, unattached; the log says why. (An id
        // of the caller's own range that it never used: while the caller is connected, no other
        // client can have it — the X server hands a closed client's range to the next one.)
        let none = String(id + 0x100, radix: 16)
        let again = Task { try await s.f.gdbus("OpenURLWithOptions", "todo://gone", "{'ask': <true>, 'parent-window': <'x11:\(none)'>}") }
        let w2 = try #require(try await s.dialog(), "no chooser came up for a window that does not exist\n\(s.f.serviceLog)")
        #expect(try s.x.cardinalProperty("WM_TRANSIENT_FOR", of: w2.id) == nil)
        #expect(s.f.serviceLog.contains("not attached to the caller's window x11:\(none): X11 window 0x\(none) does not exist"),
                "\(s.f.serviceLog.suffix(2000))")
        try await s.type(["Escape"], into: w2)
        let cancelled = try await again.value
        #expect(cancelled.stderr.contains("Error.Cancelled"), "\(cancelled.stdout)\(cancelled.stderr)")
    }

    /// sway's tree: the first node (depth first) whose `key` satisfies `match`.
    static func node(_ sway: Sway, where match: @escaping ([String: Any]) -> Bool) async throws -> [String: Any]? {
        let r = try await sway.swaymsg(["-t", "get_tree"])
        guard r.status == 0, let tree = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return nil }
        func find(_ n: [String: Any]) -> [String: Any]? {
            if match(n) { return n }
            for key in ["nodes", "floating_nodes"] {
                for child in n[key] as? [[String: Any]] ?? [] { if let hit = find(child) { return hit } }
            }
            return nil
        }
        return find(tree)
    }

    /// The imports of `handle` in a `WAYLAND_DEBUG` log: the `zxdg_imported_v1` object ids.
    static func imports(of handle: String, in log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            guard line.contains("zxdg_importer_v1@"), line.contains(".import(new id zxdg_imported_v1@"), line.contains("\"\(handle)\"") else { return nil }
            guard let r = line.range(of: "new id zxdg_imported_v1@") else { return nil }
            return String(line[r.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test func onWaylandTheChooserImportsTheCallersExportedWindow() async throws {
        let client = try await WaylandFocusTests.client()
        // A new "Open With" window does not take the focus by itself: only its activation can give it.
        let sway = try Sway(config: "focus_on_window_activation focus\nxwayland disable\nno_focus [title=\"^Open With$\"]\n")
        defer { sway.stop() }
        var serviceEnvironment = sway.clientEnvironment
        serviceEnvironment["WAYLAND_DEBUG"] = "client"
        let f = try ServiceFixture(extraEnvironment: serviceEnvironment, unsetEnvironment: ["DISPLAY"])
        defer { f.stop() }
        try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-dialog").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path)
        try f.installTodoHandlers()
        var env = ProcessInfo.processInfo.environment
        for (k, v) in sway.clientEnvironment { env[k] = v }
        env.removeValue(forKey: "DISPLAY")
        let out = f.records.appendingPathComponent("caller.out")
        let caller = try ChildProcess([client, "export", "org.example.Caller"], environment: env, stdout: out.path, stderr: out.path)
        defer { caller.terminate() }
        var handle: String?, token: String?
        _ = await Tools.eventually {
            let lines = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n")
            handle = lines.first { $0.hasPrefix("handle ") }.map { String($0.dropFirst(7)) }
            token = lines.first { $0.hasPrefix("token ") }.map { String($0.dropFirst(6)) }
            return handle != nil && token != nil
        }
        let exported = try #require(handle, "the caller exported no handle: \((try? String(contentsOf: out, encoding: .utf8)) ?? "")")
        let opened = Task {
            try await f.gdbus("OpenURLWithOptions", "todo://wayland",
                              "{'ask': <true>, 'parent-window': <'wayland:\(exported)'>, 'activation-token': <'\(token ?? "")'>}")
        }
        let shown = await Tools.eventually { (try? await Self.node(sway) { $0["name"] as? String == "Open With" && $0["visible"] as? Bool == true }) != nil }
        #expect(shown, "no chooser came up on sway\n\(f.serviceLog.suffix(3000))\n\(sway.log.suffix(1500))")
        let log = f.serviceLog
        let imported = Self.imports(of: exported, in: log)
        #expect(imported.count == 1, "the chooser did not import \(exported): \(log.suffix(3000))")
        if let m = imported.first {
            #expect(log.contains("zxdg_imported_v1@\(m).set_parent_of(wl_surface@"), "\(log.suffix(3000))")
            #expect(!log.contains("zxdg_imported_v1@\(m).destroyed()"), "the compositor refused the handle")
        }
        // It took the focus with the caller's token (once mapped: xdg_activation_v1.activate).
        #expect(await Tools.eventually { (try? await Self.node(sway) { $0["focused"] as? Bool == true })?["name"] as? String == "Open With" },
                "the chooser did not take the focus\n\(f.serviceLog.suffix(2000))\n\(sway.log.suffix(1500))")
        #expect(try await sway.swaymsg(["[title=\"^Open With$\"] kill"]).status == 0)
        let r = try await opened.value
        #expect(r.stderr.contains("Error.Cancelled"), "\(r.stdout)\(r.stderr)")

        // A handle the compositor never made: the chooser asks, sway refuses (destroyed), the chooser shows all the same.
        let forged = Task { try await f.gdbus("OpenURLWithOptions", "todo://forged", "{'ask': <true>, 'parent-window': <'wayland:forged-handle-0123'>}") }
        let shownAgain = await Tools.eventually { (try? await Self.node(sway) { $0["name"] as? String == "Open With" && $0["visible"] as? Bool == true }) != nil }
        #expect(shownAgain, "\(f.serviceLog.suffix(3000))")
        // Without a token it does not take the focus (the caller keeps it; the check above can fail).
        #expect(try await Self.node(sway) { $0["focused"] as? Bool == true }?["app_id"] as? String == "org.example.Caller")
        let forgedImports = Self.imports(of: "forged-handle-0123", in: f.serviceLog)
        #expect(forgedImports.count == 1)
        if let m = forgedImports.first {
            #expect(await Tools.eventually { f.serviceLog.contains("zxdg_imported_v1@\(m).destroyed()") }, "\(f.serviceLog.suffix(3000))")
        }
        #expect(try await sway.swaymsg(["[title=\"^Open With$\"] kill"]).status == 0)
        _ = try await forged.value
    }
}
