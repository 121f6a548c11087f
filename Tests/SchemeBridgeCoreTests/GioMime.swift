import Foundation
import Testing
@testable import SchemeBridgeCore

/// What `gio mime TYPE` prints: the default (along the type's parent chain), the registered
/// applications (the type's and its parents', `g_app_info_get_all_for_type`) and the recommended
/// ones (the type's own, `g_app_info_get_recommended_for_type`), each list in GLib's association
/// order. GLib prints the lists only when there is a default.
struct GioMimeAnswer: Equatable {
    var defaultID: String?
    var registered: [String] = []
    var recommended: [String] = []
}

/// Running GLib's and xdg-utils' tools on an ``XDGTree``, and the random trees the differential
/// tests compare on. Tools run through our own spawn (``runTool(_:environment:)``), never
/// Foundation's `Process`.
enum GioMime {
    /// The tree's environment for the tools, with nothing that could make GLib load modules or
    /// talk to a bus.
    static func toolEnvironment(_ t: XDGTree) -> [String: String] {
        var env = t.environment
        env["PATH"] = "/usr/bin:/bin"
        env["LANG"] = "C"
        env["GIO_USE_VFS"] = "local"
        env["GIO_USE_VOLUME_MONITOR"] = "unix"
        env["GSETTINGS_BACKEND"] = "memory"
        return env
    }

    /// `gio mime <mimeType>` in `t`.
    static func query(_ t: XDGTree, _ mimeType: String, gio: String) throws -> GioMimeAnswer {
        let out = try runTool([gio, "mime", mimeType], environment: toolEnvironment(t))
        return parse(String(decoding: out.output, as: UTF8.self))
    }

    /// `gio mime x-scheme-handler/<scheme>` in `t`.
    static func query(_ t: XDGTree, scheme: String, gio: String) throws -> GioMimeAnswer {
        try query(t, "x-scheme-handler/" + scheme, gio: gio)
    }

    static func parse(_ output: String) -> GioMimeAnswer {
        var answer = GioMimeAnswer()
        var section = ""
        for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("Default application for "), let colon = line.range(of: ": ", options: .backwards) {
                answer.defaultID = String(line[colon.upperBound...])
            } else if line.hasPrefix("Registered applications") {
                section = "registered"
            } else if line.hasPrefix("Recommended applications") {
                section = "recommended"
            } else if line.hasPrefix("No registered") || line.hasPrefix("No recommended") {
                section = ""
            } else if line.hasPrefix("\t") {
                let id = line.trimmingCharacters(in: .whitespaces)
                if section == "registered" { answer.registered.append(id) }
                if section == "recommended" { answer.recommended.append(id) }
            }
        }
        return answer
    }

    /// `update-desktop-database` on every applications directory of `t` (GLib reads only the
    /// `mimeinfo.cache` it writes).
    static func updateDesktopDatabase(_ t: XDGTree, tool: String) throws {
        for i in 0...t.dataDirCount where FileManager.default.fileExists(atPath: t.apps(i)) {
            let r = try runTool([tool, t.apps(i)], environment: toolEnvironment(t))
            #expect(r.status == 0, "update-desktop-database failed on \(t.apps(i))")
        }
    }

    /// GLib's association-order list with `defaultID` moved to the front: the order of our
    /// handler lists.
    static func defaultFirst(_ list: [String], _ defaultID: String?) -> [String] {
        var ordered = list
        if let d = defaultID, let i = ordered.firstIndex(of: d) {
            ordered.remove(at: i)
            ordered.insert(d, at: 0)
        }
        return ordered
    }

    /// Every file of `t` with its content, for a failure message.
    static func dump(_ t: XDGTree) -> String {
        let files = (FileManager.default.subpaths(atPath: t.root) ?? []).sorted().filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: t.root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        return files.map { "== \($0)\n" + (t.read(t.root + "/" + $0) ?? "(unreadable)") }.joined(separator: "\n")
    }
}

/// Random XDG trees: entries in three applications directories (data home and two data dirs;
/// masking, a vendor subdirectory, upper-case IDs), mimeapps lists at every level (config home,
/// config dir, each applications directory) with default lists, Added and Removed Associations
/// naming installed, lower-precedence and uninstalled IDs, and a desktop-specific list when a
/// desktop is set. What an entry lists and which keys a list names are drawn by the caller.
struct RandomMimeAppsTrees {
    static let pool = ["a.desktop", "b.desktop", "c.desktop", "Z.desktop", "vendor/d.desktop", "e-f.desktop"]
    static let ids = pool.map { DesktopID.make(relativePath: $0) } + ["ghost.desktop"]

    var rng: DifferentialTests.SplitMix
    /// The MIME types one entry lists (its `MimeType`, as written).
    let listing: (inout DifferentialTests.SplitMix) -> [String]
    /// The keys one mimeapps list names (as written).
    let keys: (inout DifferentialTests.SplitMix) -> [String]
    /// A tree is made only when some entry lists one of these.
    let wanted: Set<String>

    /// The next tree, or nil when no entry in it lists a wanted type (nothing to compare).
    mutating func next() -> XDGTree? {
        let t = XDGTree(dataDirCount: 2, desktop: Bool.random(using: &rng) ? "TestDE" : nil)
        var anyWanted = false
        for dir in 0...2 {
            for rel in Self.pool where Int.random(in: 0..<10, using: &rng) < 3 {
                let types = listing(&rng)
                anyWanted = anyWanted || !wanted.isDisjoint(with: types)
                t.entry(dir, rel, mimeTypes: types)
            }
        }
        guard anyWanted else { return nil }
        let lists = [t.configHome + "/mimeapps.list", t.configDir + "/mimeapps.list"] + (0...2).map { t.apps($0) + "/mimeapps.list" }
        for path in lists {
            guard Int.random(in: 0..<10, using: &rng) < 5 else { continue }
            var defaults: [String: String] = [:]
            var added: [String: String] = [:]
            var removed: [String: String] = [:]
            for key in keys(&rng) {
                if Bool.random(using: &rng) { defaults[key] = randomIDs(Int.random(in: 1...2, using: &rng)) }
                if Int.random(in: 0..<10, using: &rng) < 3 { added[key] = randomIDs(Int.random(in: 1...2, using: &rng)) }
                if Int.random(in: 0..<10, using: &rng) < 3 { removed[key] = randomIDs(1) }
            }
            t.list(path, defaults: defaults, added: added, removed: removed, keyPrefix: "")
        }
        if t.desktop != nil && Bool.random(using: &rng) {
            var defaults: [String: String] = [:]
            for key in keys(&rng) { defaults[key] = randomIDs(1) }
            t.list(t.configHome + "/testde-mimeapps.list", defaults: defaults, keyPrefix: "")
        }
        return t
    }

    private mutating func randomIDs(_ n: Int) -> String {
        (0..<n).map { _ in Self.ids.randomElement(using: &rng)! }.joined(separator: ";") + ";"
    }

    /// The IDs the lists of registry `r`'s tree name as default in `table` (any level, any
    /// desktop), installed or not.
    static func namedDefaults(_ r: Registry, _ table: (MimeAppsList) -> [String]) -> Set<String> {
        Set(r.directories.mimeappsDirectories.flatMap { dir in
            r.directories.mimeappsFileNames.flatMap { name -> [String] in
                MimeAppsList.load(path: dir.path + "/" + name, allowsAssociations: true).list.map(table) ?? []
            }
        })
    }

    /// Whether an applications directory's own `mimeapps.list` removes, in `table`, an entry
    /// that directory holds (and no higher one does): GLib keeps such an entry
    /// (docs/REGISTRY.md, "Where GLib differs", 4).
    static func removesOwnEntry(_ t: XDGTree, _ table: (MimeAppsList) -> [String]) -> Bool {
        (0...2).contains { k in
            let removed = MimeAppsList.load(path: t.apps(k) + "/mimeapps.list", allowsAssociations: true).list.map(table) ?? []
            return pool.contains { rel in
                removed.contains(DesktopID.make(relativePath: rel))
                    && FileManager.default.fileExists(atPath: t.apps(k) + "/" + rel)
                    && !(0..<k).contains { FileManager.default.fileExists(atPath: t.apps($0) + "/" + rel) }
            }
        }
    }
}
