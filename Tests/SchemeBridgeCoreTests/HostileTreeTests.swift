import Foundation
import Testing
@testable import SchemeBridgeCore

/// Applications directories a program of the user can fill with anything: a symlink to `/`,
/// entries with a million schemes.
@Suite struct HostileTreeTests {
    /// The inotify watches this process holds (from `/proc/self/fdinfo`).
    static func inotifyWatches() -> Int {
        let dir = "/proc/self/fdinfo"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        var count = 0
        for fd in fds {
            guard let text = try? String(contentsOfFile: dir + "/" + fd, encoding: .utf8) else { continue }
            count += text.components(separatedBy: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        return count
    }

    @Test func aSymlinkToTheRootAddsNoWatchAndNoEntry() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(0, "todo.desktop", schemes: ["todolist"])
        tree.mkdir(tree.apps(0) + "/vendor")
        tree.entry(0, "vendor/app.desktop", schemes: ["vendorscheme"])
        try FileManager.default.createSymbolicLink(atPath: tree.apps(0) + "/x", withDestinationPath: "/")
        try FileManager.default.createSymbolicLink(atPath: tree.apps(0) + "/same", withDestinationPath: tree.apps(0) + "/vendor")
        let before = Self.inotifyWatches()
        let clock = ContinuousClock()
        let started = clock.now
        let registry = Registry(environment: tree.environment, watch: true)
        defer { registry.close() }
        let took = clock.now - started
        let watches = Self.inotifyWatches() - before
        print("MEASURE a symlink applications/x -> /: \(watches) inotify watches, start-up \(took)")
        // The applications dirs, mime dirs and the vendor subfolder: a handful, nothing below /.
        #expect(watches < 16, "\(watches) watches")
        #expect(registry.handlers(forScheme: "todolist") == ["todo.desktop"])
        #expect(registry.handlers(forScheme: "vendorscheme").count == 1, "the folder is read once, through one of its names")
        #expect(registry.recentWarnings.contains { $0.message.contains("not followed") })
    }

    @Test func entriesWithAMillionSchemesAreReadInLinearTime() throws {
        let tree = XDGTree(dataDirCount: 1)
        // 20 entries of ~1 MiB, each listing 40,000 schemes (every one twice).
        let schemes = (0..<20_000).map { "x-scheme-handler/s\($0);" }.joined()
        for i in 0..<20 {
            tree.write(tree.apps(1) + "/big\(i).desktop",
                       "[Desktop Entry]\nType=Application\nName=Big\nExec=/bin/true %u\nMimeType=\(schemes)\(schemes)\n")
        }
        let clock = ContinuousClock()
        let started = clock.now
        let registry = tree.registry()
        let took = clock.now - started
        print("MEASURE 20 entries of 1 MiB MimeType=: start-up \(took)")
        #expect(registry.entry(id: "big0.desktop")?.schemes.count == 20_000, "duplicates dropped, order kept")
        #expect(registry.handlers(forScheme: "s19999").count == 20)
        // Quadratic de-duplication took minutes here; linear takes well under a second.
        #expect(took < .seconds(30), "start-up took \(took)")
    }
}
