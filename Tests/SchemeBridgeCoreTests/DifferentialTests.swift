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

    static func toolEnvironment(_ t: XDGTree) -> [String: String] {
        var env = t.environment
        env["PATH"] = "/usr/bin:/bin"
        env["LANG"] = "C"
        env["GIO_USE_VFS"] = "local"
        env["GIO_USE_VOLUME_MONITOR"] = "unix"
        env["GSETTINGS_BACKEND"] = "memory"
        return env
    }

    /// `gio mime <type>`: the default and the registered applications, in GLib's order.
    static func gioMime(_ t: XDGTree, scheme: String, gio: String) throws -> (defaultID: String?, registered: [String]) {
        let out = try run(gio, ["mime", "x-scheme-handler/\(scheme)"], environment: toolEnvironment(t))
        var defaultID: String? = nil
        var registered: [String] = []
        var section = ""
        for line in out.stdout.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("Default application for "), let colon = line.range(of: ": ", options: .backwards) {
                defaultID = String(line[colon.upperBound...])
            } else if line.hasPrefix("Registered applications") {
                section = "registered"
            } else if line.hasPrefix("Recommended applications") {
                section = "recommended"
            } else if line.hasPrefix("\t"), section == "registered" {
                registered.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return (defaultID, registered)
    }

    static func updateDesktopDatabase(_ t: XDGTree, tool: String) throws {
        for i in 0...t.dataDirCount where FileManager.default.fileExists(atPath: t.apps(i)) {
            let r = try run(tool, [t.apps(i)], environment: toolEnvironment(t))
            #expect(r.status == 0, "update-desktop-database failed: \(r.stderr)")
        }
    }

    @Test func defaultsAgreeWithGio() throws {
        guard let gio = requireTool("gio", package: "libglib2.0-bin"),
              let udd = requireTool("update-desktop-database", package: "desktop-file-utils") else { return }
        var rng = SplitMix(state: 20261122)
        let pool = ["a.desktop", "b.desktop", "c.desktop", "Z.desktop", "vendor/d.desktop", "e-f.desktop"]
        let ids = pool.map { DesktopID.make(relativePath: $0) } + ["ghost.desktop"]
        var compared = 0
        var withDefaultList = 0
        var attempts = 0
        while compared < 24 && attempts < 200 {
            attempts += 1
            let t = XDGTree(dataDirCount: 2, desktop: Bool.random(using: &rng) ? "TestDE" : nil)
            var anyHandler = false
            for dir in 0...2 {
                for rel in pool where Int.random(in: 0..<10, using: &rng) < 3 {
                    let handles = Int.random(in: 0..<10, using: &rng) < 7
                    anyHandler = anyHandler || handles
                    t.entry(dir, rel, schemes: handles ? ["s"] : ["other"])
                }
            }
            guard anyHandler else { continue }
            func randomIDs(_ n: Int) -> String {
                (0..<n).map { _ in ids.randomElement(using: &rng)! }.joined(separator: ";") + ";"
            }
            var lists: [String] = [t.configHome + "/mimeapps.list", t.configDir + "/mimeapps.list"]
            lists += (0...2).map { t.apps($0) + "/mimeapps.list" }
            for path in lists {
                guard Int.random(in: 0..<10, using: &rng) < 5 else { continue }
                var defaults: [String: String] = [:]
                var added: [String: String] = [:]
                var removed: [String: String] = [:]
                if Bool.random(using: &rng) { defaults["s"] = randomIDs(Int.random(in: 1...2, using: &rng)) }
                if Int.random(in: 0..<10, using: &rng) < 3 { added["s"] = randomIDs(Int.random(in: 1...2, using: &rng)) }
                if Int.random(in: 0..<10, using: &rng) < 3 { removed["s"] = randomIDs(1) }
                t.list(path, defaults: defaults, added: added, removed: removed)
            }
            if t.desktop != nil && Bool.random(using: &rng) {
                t.list(t.configHome + "/testde-mimeapps.list", defaults: ["s": randomIDs(1)])
            }
            let r = t.registry()
            let ours = r.resolution(forScheme: "s")
            // Keep only trees where GLib and the spec agree by construction: every installed ID
            // named as a default must be associated (GLib does not check that, and does not let
            // a removal veto a default).
            let named = Set(r.directories.mimeappsDirectories.flatMap { dir in
                r.directories.mimeappsFileNames.flatMap { name -> [String] in
                    MimeAppsList.load(path: dir.path + "/" + name, allowsAssociations: true).list?.defaults["s"] ?? []
                }
            })
            if !named.filter({ r.entry(id: $0) != nil }).isSubset(of: Set(ours.handlers)) { continue }
            // GLib also keeps an entry that its own directory's mimeapps.list removes (see
            // docs/REGISTRY.md); leave such trees out.
            let removedInOwnDirectory = (0...2).contains { k in
                let removed = MimeAppsList.load(path: t.apps(k) + "/mimeapps.list", allowsAssociations: true).list?.removed["s"] ?? []
                return pool.contains { rel in
                    removed.contains(DesktopID.make(relativePath: rel))
                        && FileManager.default.fileExists(atPath: t.apps(k) + "/" + rel)
                        && !(0..<k).contains { FileManager.default.fileExists(atPath: t.apps($0) + "/" + rel) }
                }
            }
            if removedInOwnDirectory { continue }
            try DifferentialTests.updateDesktopDatabase(t, tool: udd)
            let glib = try DifferentialTests.gioMime(t, scheme: "s", gio: gio)
            #expect(glib.defaultID == ours.defaultHandler, "tree \(t.root): gio says \(glib.defaultID ?? "none"), we say \(ours.defaultHandler ?? "none")")
            // GLib's registered list is the association order; ours puts the default first.
            var glibOrder = glib.registered
            if let d = ours.defaultHandler, let i = glibOrder.firstIndex(of: d) {
                glibOrder.remove(at: i)
                glibOrder.insert(d, at: 0)
            }
            if glibOrder != ours.handlers {
                let dump = (try? run("/bin/sh", ["-c", "cd \(t.root) && for f in $(find . -type f | sort); do echo \"== $f\"; cat $f; done"], environment: [:]).stdout) ?? ""
                Issue.record("handler order differs: gio \(glibOrder), ours \(ours.handlers)\n\(dump)")
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
        try DifferentialTests.updateDesktopDatabase(t, tool: udd)
        let r = t.registry()
        for id in ["b.desktop", "vendor-c.desktop", "a.desktop"] {
            try r.setDefault(scheme: "todo", desktopID: id)
            #expect(r.defaultHandler(forScheme: "todo") == id)
            #expect(try DifferentialTests.gioMime(t, scheme: "todo", gio: gio).defaultID == id)
            let x = try run(xdgMime, ["query", "default", "x-scheme-handler/todo"], environment: DifferentialTests.toolEnvironment(t))
            #expect(x.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == id, "xdg-mime: \(x.stdout) \(x.stderr)")
        }
        #expect(t.read(t.configHome + "/mimeapps.list")?.hasPrefix("# mine\n[Default Applications]\ntext/plain=gedit.desktop\nx-scheme-handler/todo=a.desktop\n") == true)
        // And the other way round: what gio writes, we read.
        let set = try run(gio, ["mime", "x-scheme-handler/todo", "b.desktop"], environment: DifferentialTests.toolEnvironment(t))
        #expect(set.status == 0)
        r.rescan()
        #expect(r.defaultHandler(forScheme: "todo") == "b.desktop")
    }
}
