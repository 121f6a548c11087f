import Foundation
import Testing
@testable import SchemeBridgeCore

/// A launch-image directory stuffed with files (issue 12, item 5): a lookup never lists more
/// than ``LaunchImageIndex/maximumFiles`` entries, and a directory that holds more is never
/// listed again, however often it changes — its lookups `stat` the candidate names.
@Suite struct LaunchImageLimitTests {
    @Test func aHugeDirectoryIsLookedUpByNameNotRelisted() throws {
        let tree = XDGTree()
        tree.entry(0, "org.example.Todo.desktop", schemes: ["todolist"])
        let registry = tree.registry()
        let index = LaunchImageIndex()
        let entry = try #require(registry.entry(id: "org.example.Todo.desktop"))
        let dir = tree.dataHome + "/launch-images/org.example.Todo"
        tree.mkdir(dir)
        for i in 0..<(LaunchImageIndex.maximumFiles + 2000) {
            _ = FileManager.default.createFile(atPath: "\(dir)/junk-\(i).png", contents: nil)
        }
        tree.writeBytes(dir + "/Default-todolist@2x.png", [0x89, 0x50, 0x4E, 0x47])
        tree.writeBytes(dir + "/default.png", [0x89, 0x50, 0x4E, 0x47])
        #expect(index.image(for: entry, scheme: "todolist", scale: 2) == dir + "/Default-todolist@2x.png")
        #expect(index.image(for: entry, scheme: "todolist", scale: 1) == dir + "/Default-todolist@2x.png", "the nearest other scale")
        #expect(index.image(for: entry, scheme: "notes", scale: 1) == dir + "/default.png", "the generic image, lower-cased")
        let reads = index.directoryReads.load(ordering: .relaxed)
        #expect(reads == 1)
        // The attacker keeps changing the directory: before the fix every change cost a listing
        // of every file, inline in the call being answered.
        for i in 0..<5 {
            _ = FileManager.default.createFile(atPath: "\(dir)/more-\(i).png", contents: nil)
            #expect(index.image(for: entry, scheme: "todolist", scale: 2) == dir + "/Default-todolist@2x.png")
        }
        #expect(index.directoryReads.load(ordering: .relaxed) == reads, "a huge directory is never listed again")
        try FileManager.default.removeItem(atPath: dir + "/Default-todolist@2x.png")
        #expect(index.image(for: entry, scheme: "todolist", scale: 2) == dir + "/default.png", "changes are still seen")
    }
}
