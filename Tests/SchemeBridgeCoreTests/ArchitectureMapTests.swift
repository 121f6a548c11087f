import Foundation
import Testing

/// docs/ARCHITECTURE.md is the map a newcomer reads first: it cannot drift from the tree. Every
/// target under `Sources/` and every folder of the core must be named there, in a code span
/// (`` `Devices` ``), and the walks it promises must be there.
@Suite struct ArchitectureMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func folders(_ path: String) throws -> [String] {
        let dir = root.appendingPathComponent(path)
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }.sorted()
    }

    /// The names of `folders` that `map` does not name in a code span.
    static func unnamed(_ folders: [String], in map: String) -> [String] {
        folders.filter { !map.contains("`\($0)`") && !map.contains("`\($0)/") }
    }

    @Test func everyTargetAndCoreFolderIsOnTheMap() throws {
        let map = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let targets = try Self.folders("Sources"), core = try Self.folders("Sources/SchemeBridgeCore")
        #expect(targets.count > 10 && core.count > 10, "the tree was not found at \(Self.root.path)")
        #expect(Self.unnamed(targets, in: map).isEmpty, "targets docs/ARCHITECTURE.md does not name: \(Self.unnamed(targets, in: map))")
        #expect(Self.unnamed(core, in: map).isEmpty, "core folders docs/ARCHITECTURE.md does not name: \(Self.unnamed(core, in: map))")
        for walk in ["## The walk of a URL", "## The walk of a document", "## The walk of a share", "## The walk of a received file"] {
            #expect(map.contains(walk), "docs/ARCHITECTURE.md has no section '\(walk)'")
        }
    }

    /// The check itself: a folder the map does not name is found.
    @Test func aFolderTheMapDoesNotNameIsFound() {
        #expect(Self.unnamed(["Routing", "Teleport"], in: "`Routing` (`Broker`)") == ["Teleport"])
        #expect(Self.unnamed(["Devices"], in: "Devices, without a code span").count == 1)
    }
}
