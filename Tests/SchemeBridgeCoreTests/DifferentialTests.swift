import Foundation
import Testing
@testable import SchemeBridgeCore

/// Compares our resolver with GLib (`gio mime`) and xdg-utils (`xdg-mime`) on generated trees.
///
/// These tools are required (CI installs libglib2.0-bin, xdg-utils and desktop-file-utils):
/// a missing tool fails the test with the package to install, it is never skipped.
@Suite(.serialized) struct DifferentialTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D4_9BB1_3311_62EB
            return z ^ (z >> 31)
        }
    }

    @Test func defaultsAgreeWithGio() throws {
        guard let gio = requireTool("gio", package: "libglib2.0-bin"),
              let udd = requireTool("update-desktop-database", package: "desktop-file-utils") else { return }
        var trees = RandomMimeAppsTrees(rng: SplitMix(state: 20261122),
                                        listing: { rng in [Int.random(in: 0..<10, using: &rng) < 7 ? "x-scheme-handler/s" : "x-scheme-handler/other"] },
                                        keys: { _ in ["x-scheme-handler/s"] }, wanted: ["x-scheme-handler/s"])
        var compared = 0
        var withDefaultList = 0
        var attempts = 0
        while compared < 24 && attempts < 200 {
            attempts += 1
            guard let t = trees.next() else { continue }
            let r = t.registry()
            let ours = r.resolution(forScheme: "s")
            // Keep only trees where GLib and the spec agree by construction: every installed ID
            // named as a default must be associated (GLib does not check that, and does not let
            // a removal veto a default).
            let named = RandomMimeAppsTrees.namedDefaults(r) { $0.defaults["s"] ?? [] }
            if !named.filter({ r.entry(id: DesktopID(fileName: $0)) != nil }).isSubset(of: Set(ours.handlers.map(\.fileName))) { continue }
            // GLib also keeps an entry that its own directory's mimeapps.list removes (see
            // docs/REGISTRY.md); leave such trees out.
            if RandomMimeAppsTrees.removesOwnEntry(t, { $0.removed["s"] ?? [] }) { continue }
            try GioMime.updateDesktopDatabase(t, tool: udd)
            let glib = try GioMime.query(t, scheme: "s", gio: gio)
            #expect(glib.defaultID == ours.defaultHandler?.fileName, "tree \(t.root): gio says \(glib.defaultID ?? "none"), we say \(ours.defaultHandler?.fileName ?? "none")")
            // GLib's registered list is the association order; ours puts the default first.
            let glibOrder = GioMime.defaultFirst(glib.registered, ours.defaultHandler?.fileName)
            if glibOrder != ours.handlers.map(\.fileName) {
                Issue.record("handler order differs: gio \(glibOrder), ours \(ours.handlers)\n\(GioMime.dump(t))")
            }
            compared += 1
            if !named.isEmpty { withDefaultList += 1 }
        }
        #expect(compared >= 24, "only \(compared) comparable trees in \(attempts) attempts")
        #expect(withDefaultList >= 8)
    }

    @Test func setDefaultIsWhatGioAndXdgMimeReport() throws {
        guard let gio = requireTool("gio", package: "libglib2.0-bin"),
              let xdgMime = requireTool("xdg-mime", package: "xdg-utils"),
              let udd = requireTool("update-desktop-database", package: "desktop-file-utils") else { return }
        let t = XDGTree()
        t.entry(1, "a.desktop", schemes: ["todo"])
        t.entry(1, "b.desktop", schemes: ["todo"])
        t.entry(2, "vendor/c.desktop", schemes: ["todo"])
        t.write(t.configHome + "/mimeapps.list", "# mine\n[Default Applications]\ntext/plain=gedit.desktop\n")
        try GioMime.updateDesktopDatabase(t, tool: udd)
        let r = t.registry()
        for id in ["b.desktop", "vendor-c.desktop", "a.desktop"] {
            try r.setDefault(scheme: "todo", desktopID: DesktopID(fileName: id))
            #expect(r.defaultHandler(forScheme: "todo")?.fileName == id)
            #expect(try GioMime.query(t, scheme: "todo", gio: gio).defaultID == id)
            let x = String(decoding: try runTool([xdgMime, "query", "default", "x-scheme-handler/todo"], environment: GioMime.toolEnvironment(t)).output, as: UTF8.self)
            #expect(x.trimmingCharacters(in: .whitespacesAndNewlines) == id, "xdg-mime: \(x)")
        }
        #expect(t.read(t.configHome + "/mimeapps.list")?.hasPrefix("# mine\n[Default Applications]\ntext/plain=gedit.desktop\nx-scheme-handler/todo=a.desktop\n") == true)
        // And the other way round: what gio writes, we read.
        let set = try runTool([gio, "mime", "x-scheme-handler/todo", "b.desktop"], environment: GioMime.toolEnvironment(t))
        #expect(set.status == 0)
        r.rescan()
        #expect(r.defaultHandler(forScheme: "todo") == "b.desktop")
    }
}
