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

    @Test func anEntryDeclaresAtMost1024SchemesAndIsWarnedAbout() throws {
        let tree = XDGTree(dataDirCount: 1)
        // Every scheme listed twice: duplicates do not count.
        let schemes = (0..<20_000).map { "x-scheme-handler/s\($0);" }.joined()
        tree.write(tree.apps(1) + "/big.desktop",
                   "[Desktop Entry]\nType=Application\nName=Big\nExec=/bin/true %u\nMimeType=text/plain;\(schemes)\(schemes)\n")
        let exact = (0..<DesktopEntry.maximumSchemes).map { "x-scheme-handler/e\($0);x-scheme-handler/E\($0);" }.joined()
        tree.write(tree.apps(1) + "/exact.desktop", "[Desktop Entry]\nType=Application\nName=Exact\nExec=/bin/true %u\nMimeType=\(exact)\n")
        let registry = tree.registry()
        let big = try #require(registry.entry(id: "big.desktop"))
        #expect(DesktopEntry.maximumSchemes == 1024)
        #expect(big.schemes.count == 1024 && big.schemes.first == "s0" && big.schemes.last == "s1023", "the first 1,024, in file order")
        #expect(registry.handlers(forScheme: "s1023") == ["big.desktop"])
        #expect(registry.handlers(forScheme: "s1024").isEmpty, "the rest are ignored")
        let warnings = registry.recentWarnings.map(\.description)
        #expect(warnings.contains(tree.apps(1) + "/big.desktop:5: MimeType= declares more than 1024 URL schemes; only the first 1024 are used"),
                "\(warnings)")
        #expect(registry.entry(id: "exact.desktop")?.schemes.count == 1024)
        #expect(!warnings.contains { $0.contains("exact.desktop") }, "1,024 schemes (each twice, in two cases) are within the limit")
    }

    @Test func entriesWithAMillionSchemesAreReadInLinearTime() throws {
        let tree = XDGTree(dataDirCount: 1)
        // 20 entries of ~1 MiB, each listing 40,000 schemes (every one twice); 1,024 are used.
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
        #expect(registry.handlers(forScheme: "s1023").count == 20)
        // Quadratic de-duplication took minutes here; linear takes well under a second.
        #expect(took < .seconds(30), "start-up took \(took)")
    }
}
