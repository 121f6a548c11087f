import Foundation
import Testing
@testable import SchemeBridgeCore

/// The launch-image lookup of the README ("Launch images"), file by file.
@Suite struct LaunchImageTests {
    /// A tree with one handler of `todolist`; returns the tree, its image directory and a lookup.
    func setUp(extra: String = "", id: String = "org.example.Todo.desktop", dir: Int = 0)
        -> (XDGTree, String, (String, Int) -> String?) {
        let tree = XDGTree()
        tree.entry(dir, id, schemes: ["todolist", "notes"], extra: extra)
        let registry = tree.registry()
        let index = LaunchImageIndex()
        let base = (dir == 0 ? tree.dataHome : tree.dataDirs[dir - 1]) + "/launch-images/" + String(id.dropLast(8))
        return (tree, base, { scheme, scale in
            guard let e = registry.entry(id: DesktopID(fileName: id)) else { return nil }
            return index.image(for: e, scheme: scheme, scale: scale)
        })
    }

    func touch(_ tree: XDGTree, _ path: String) { tree.writeBytes(path, [0x89, 0x50, 0x4E, 0x47]) }
    func name(_ path: String?) -> String? { path.map { ($0 as NSString).lastPathComponent } }

    @Test func orderFileByFileAtScaleTwo() {
        let (tree, dir, lookup) = setUp()
        #expect(lookup("todolist", 2) == nil, "a missing directory is no image")
        tree.mkdir(dir)
        #expect(lookup("todolist", 2) == nil, "an empty directory is no image")
        // Remove candidates from the best down: each removal reveals the next in order.
        let order = ["Default-todolist@2x.png", "Default-todolist.png", "Default-todolist@3x.png", "Default-todolist@1x.png",
                     "Default@2x.png", "Default.png", "Default@1x.png"]
        for f in order + ["Default-notes@2x.png", "Other@2x.png", "Default-todolist@2x.jpg", "Default-todolist@0x.png"] {
            touch(tree, dir + "/" + f)
        }
        for (i, expected) in order.enumerated() {
            #expect(name(lookup("todolist", 2)) == expected, "step \(i)")
            try? FileManager.default.removeItem(atPath: dir + "/" + expected)
            // The directory changed: the next lookup sees it without any rescan call.
        }
        #expect(lookup("todolist", 2) == nil)
        #expect(lookup("notes", 2) == dir + "/Default-notes@2x.png")
    }

    @Test func nearestOtherScaleTiesGoToTheLarger() {
        let (tree, dir, lookup) = setUp()
        for f in ["Default-todolist@1x.png", "Default-todolist@3x.png", "Default-todolist@5x.png"] { touch(tree, dir + "/" + f) }
        #expect(name(lookup("todolist", 2)) == "Default-todolist@3x.png")
        #expect(name(lookup("todolist", 4)) == "Default-todolist@5x.png")
        #expect(name(lookup("todolist", 1)) == "Default-todolist@1x.png")
        #expect(name(lookup("todolist", 8)) == "Default-todolist@5x.png")
    }

    @Test func scaleOneAndSchemeCase() {
        let (tree, dir, lookup) = setUp()
        touch(tree, dir + "/Default-TodoList.png")
        touch(tree, dir + "/Default-todolist@2x.png")
        #expect(name(lookup("todolist", 1)) == "Default-TodoList.png")
        #expect(name(lookup("TODOLIST", 2)) == "Default-todolist@2x.png")
    }

    @Test func genericFallbacksOnly() {
        let (tree, dir, lookup) = setUp()
        touch(tree, dir + "/Default@2x.png")
        #expect(name(lookup("todolist", 1)) == "Default@2x.png", "the generic nearest scale is the last resort")
        touch(tree, dir + "/Default.png")
        #expect(name(lookup("todolist", 1)) == "Default.png")
        #expect(name(lookup("todolist", 2)) == "Default@2x.png")
    }

    @Test func baseNameAndDirectoryKeys() {
        let (tree, _, lookup) = setUp(extra: "X-LaunchImage=Splash\nX-LaunchImageDir=../images")
        let dir = tree.dataHome + "/images"
        touch(tree, dir + "/Default-todolist.png")
        #expect(lookup("todolist", 1) == nil, "the base name is Splash, not Default")
        touch(tree, dir + "/Splash-todolist.png")
        #expect(lookup("todolist", 1) == tree.dataHome + "/applications/../images/Splash-todolist.png")

        let abs = XDGTree()
        let absDir = abs.root + "/elsewhere"
        abs.entry(1, "vendor/app.desktop", schemes: ["todolist"], extra: "X-LaunchImageDir=\(absDir)/")
        touch(abs, absDir + "/Default.png")
        let e = abs.registry().entry(id: "vendor-app.desktop")
        #expect(e != nil)
        #expect(e.flatMap { LaunchImageIndex().image(for: $0, scheme: "todolist", scale: 1) } == absDir + "/Default.png")
    }

    @Test func defaultDirectoryIsInTheEntrysDataDirAndUsesTheDesktopID() {
        let (tree, dir, lookup) = setUp(id: "org.example.Todo.desktop", dir: 1)
        #expect(dir == tree.dataDirs[0] + "/launch-images/org.example.Todo")
        touch(tree, tree.dataHome + "/launch-images/org.example.Todo/Default.png")
        #expect(lookup("todolist", 1) == nil, "another data dir's images are not this entry's")
        touch(tree, dir + "/Default.png")
        #expect(lookup("todolist", 1) == dir + "/Default.png")
    }

    @Test func hostileKeysAndFilesAreIgnored() {
        let (tree, dir, lookup) = setUp(extra: "X-LaunchImage=../../etc/passwd")
        touch(tree, dir + "/Default.png")
        #expect(name(lookup("todolist", 1)) == "Default.png", "a base name with a slash falls back to Default")
        try? FileManager.default.removeItem(atPath: dir + "/Default.png")
        tree.mkdir(dir + "/Default.png")  // a directory named like an image
        #expect(lookup("todolist", 1) == nil)
        try? FileManager.default.createSymbolicLink(atPath: dir + "/Default-todolist.png", withDestinationPath: dir + "/missing.png")
        #expect(lookup("todolist", 1) == nil, "a dangling symlink is no image")
        touch(tree, dir + "/real.png")
        try? FileManager.default.removeItem(atPath: dir + "/Default-todolist.png")
        try? FileManager.default.createSymbolicLink(atPath: dir + "/Default-todolist.png", withDestinationPath: dir + "/real.png")
        #expect(name(lookup("todolist", 1)) == "Default-todolist.png", "a symlink to a file is an image")
    }

    @Test func newFilesAreSeenAtOnceAndLookupsDoNotRescan() {
        let (tree, dir, lookup) = setUp()
        tree.mkdir(dir)
        #expect(lookup("todolist", 1) == nil)
        touch(tree, dir + "/Default-todolist.png")
        #expect(name(lookup("todolist", 1)) == "Default-todolist.png", "written right after a lookup, seen by the next")
        // An unchanged directory (last changed long ago) is served from memory: no more reads.
        let old = timespec(tv_sec: 1_000_000_000, tv_nsec: 0)
        var times = [old, old]
        utimensat(AT_FDCWD, dir, &times, 0)
        let index = LaunchImageIndex()
        let entry = tree.registry().entry(id: "org.example.Todo.desktop")!
        #expect(index.image(for: entry, scheme: "todolist", scale: 1) == dir + "/Default-todolist.png")
        let reads = index.directoryReads.load(ordering: .relaxed)
        for _ in 0..<100 { _ = index.image(for: entry, scheme: "todolist", scale: 1) }
        #expect(index.directoryReads.load(ordering: .relaxed) == reads)
        touch(tree, dir + "/Default-todolist@2x.png")
        #expect(index.image(for: entry, scheme: "todolist", scale: 2) == dir + "/Default-todolist@2x.png")
        #expect(index.directoryReads.load(ordering: .relaxed) == reads + 1)
    }

    @Test func displayScaleFromTheSession() {
        #expect(DisplayScale.from(environment: [:]) == 1)
        #expect(DisplayScale.from(environment: ["GDK_SCALE": "2"]) == 2)
        #expect(DisplayScale.from(environment: ["GDK_SCALE": "2", "QT_SCALE_FACTOR": "3"]) == 2)
        #expect(DisplayScale.from(environment: ["QT_SCALE_FACTOR": "1.6"]) == 2)
        #expect(DisplayScale.from(environment: ["GDK_SCALE": "x", "QT_SCALE_FACTOR": "3"]) == 3)
        #expect(DisplayScale.from(environment: [:], xftDPI: 192) == 2)
        #expect(DisplayScale.from(environment: [:], xftDPI: 120) == 1)
        #expect(DisplayScale.from(environment: ["GDK_SCALE": "40"]) == 8)
        #expect(DisplayScale.from(environment: ["GDK_SCALE": "0"]) == 1)
    }
}
