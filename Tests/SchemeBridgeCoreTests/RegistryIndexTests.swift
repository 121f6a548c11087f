import Foundation
import Testing
@testable import SchemeBridgeCore

/// The on-disk index never lies: whatever changed between two runs, the next start answers as
/// a full scan would; a damaged, foreign or unusable index only costs a scan.
@Suite struct RegistryIndexTests {
    /// A run of the service's registry: built, then closed (which writes a pending index).
    @discardableResult
    func run(_ tree: XDGTree) -> Registry {
        let r = Registry(environment: tree.environment, watch: false)
        r.close()
        return r
    }

    /// What a scan without any index answers.
    func scanned(_ tree: XDGTree) -> Registry {
        Registry(environment: tree.environment, watch: false, index: .disabled)
    }

    /// Files are trusted from the index only when they changed more than 100 ms before they
    /// were read (coarse timestamps could hide a later change); fixtures wait that out.
    func settle() async {
        await XDGTree.outlastTimestampMargin()
    }

    /// A tree with two data dirs, three entries, an index written by a first run, and a
    /// second run that proves the index is used as is.
    func warmTree() async throws -> XDGTree {
        let tree = XDGTree()
        tree.entry(0, "user.desktop", schemes: ["alpha"])
        tree.entry(1, "a.desktop", schemes: ["alpha", "beta"])
        tree.entry(1, "vendor/b.desktop", schemes: ["beta"])
        tree.entry(2, "low.desktop", schemes: ["gamma"])
        await settle()
        let first = run(tree)
        #expect(first.startup.usedIndex == false)
        #expect(first.startup.indexRejection == nil)
        let path = try #require(first.indexPath)
        #expect(FileManager.default.fileExists(atPath: path))
        let warm = run(tree)
        #expect(warm.startup.usedIndex)
        #expect(warm.startup.filesParsed == 0)
        #expect(warm.startup.directoriesWalked == 0)
        #expect(warm.handlers(forScheme: "beta") == ["a.desktop", "vendor-b.desktop"])
        return tree
    }

    /// The next start answers every scheme as a scan does.
    func expectAnswersLikeAScan(_ tree: XDGTree, schemes: [String] = ["alpha", "beta", "gamma", "delta"],
                                sourceLocation: SourceLocation = #_sourceLocation) -> Registry {
        let next = run(tree)
        let truth = scanned(tree)
        for s in schemes {
            #expect(next.handlers(forScheme: s) == truth.handlers(forScheme: s), "scheme \(s)", sourceLocation: sourceLocation)
        }
        #expect(next.schemes == truth.schemes, sourceLocation: sourceLocation)
        return next
    }

    @Test func warmStartParsesNothing() async throws {
        let tree = try await warmTree()
        let r = run(tree)
        #expect(r.startup.usedIndex && r.startup.filesParsed == 0 && r.startup.filesChanged == 0)
        #expect(r.entry(id: "vendor-b.desktop")?.name == "Test App")
        #expect(r.entry(id: "vendor-b.desktop")?.path == tree.apps(1) + "/vendor/b.desktop")
        #expect(r.recentWarnings.isEmpty)
    }

    /// Served from the index without decoding it, the registry answers every query as a scan
    /// does, and a write turns it into the full model.
    @Test func warmRegistryAnswersEveryQuery() async throws {
        let tree = try await warmTree()
        let warm = Registry(environment: tree.environment, watch: false)
        defer { warm.close() }
        let truth = scanned(tree)
        #expect(warm.startup.usedIndex && warm.startup.filesParsed == 0)
        #expect(warm.schemes == truth.schemes)
        #expect(warm.applicationIDs(executing: "/bin/true") == truth.applicationIDs(executing: "/bin/true"))
        #expect(warm.applicationIDs(executing: "/bin/true").count == 4)
        #expect(warm.entry(id: "low.desktop") == truth.entry(id: "low.desktop"))
        #expect(warm.entry(id: "nope.desktop") == nil)
        #expect(warm.defaultHandler(forScheme: "ALPHA") == "user.desktop")
        let after = try warm.setDefault(scheme: "alpha", desktopID: "a.desktop")
        #expect(after.defaultHandler == "a.desktop")
        #expect(warm.handlers(forScheme: "alpha") == ["a.desktop", "user.desktop"])
        #expect(warm.handlers(forScheme: "beta") == truth.handlers(forScheme: "beta"))
        // The list changed: the next start resolves again (its stored answers are for the old list).
        let next = run(tree)
        #expect(next.defaultHandler(forScheme: "alpha") == "a.desktop")
    }

    /// What the service asks while it starts — which entries declare app links, which entry
    /// runs a caller's program (by its name, or through a symbolic link of another name, absolute
    /// or a bare name on `PATH`) — is answered from the index as a scan answers it, and without
    /// building the model (issue 36: the app links had made every warm start decode every record).
    @Test func startupQuestionsAreAnsweredFromTheIndex() async throws {
        let tree = XDGTree()
        tree.mkdir(tree.bin)
        for name in ["real-tool", "real-bare", "plain-prog"] {
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: tree.bin + "/" + name)
        }
        #expect(symlink(tree.bin + "/real-tool", tree.bin + "/tool") == 0)
        #expect(symlink("real-bare", tree.bin + "/bare-tool") == 0)
        tree.entry(1, "links.desktop", schemes: ["alpha"], extra: "X-SchemeBridge-AppLinks=links.example;\n")
        tree.entry(0, "user-links.desktop", extra: "X-SchemeBridge-AppLinks=user.example;\n")
        tree.entry(1, "hidden-links.desktop", extra: "X-SchemeBridge-AppLinks=hidden.example;\nHidden=true\n")
        tree.entry(1, "tool.desktop", exec: tree.bin + "/tool %u")
        tree.entry(1, "bare.desktop", exec: "bare-tool %u")
        tree.entry(2, "plain.desktop", exec: "plain-prog %u")
        await settle()
        run(tree)
        let warm = Registry(environment: tree.environment, watch: false)
        defer { warm.close() }
        let truth = scanned(tree)
        #expect(warm.startup.usedIndex && warm.startup.filesParsed == 0)
        let programs = ["real-tool", "real-bare", "plain-prog", "tool", "bare-tool", "none"].map { tree.bin + "/" + $0 } + ["/bin/true"]
        for program in programs {
            #expect(warm.applicationIDs(executing: program) == truth.applicationIDs(executing: program), "\(program)")
        }
        #expect(warm.applicationIDs(executing: tree.bin + "/real-tool") == ["tool.desktop"])
        #expect(warm.applicationIDs(executing: tree.bin + "/real-bare") == ["bare.desktop"])
        #expect(warm.applicationIDs(executing: tree.bin + "/plain-prog") == ["plain.desktop"])
        #expect(warm.isServedFromIndex, "identifying a caller built the model")
        #expect(warm.appLinkEntries() == truth.appLinkEntries())
        #expect(warm.appLinkEntries().map(\.id) == ["links.desktop", "user-links.desktop"])
        #expect(warm.isServedFromIndex, "listing the app-link entries built the model")
        // The first change builds it, and the answers stay.
        warm.rescan()
        #expect(!warm.isServedFromIndex)
        #expect(warm.appLinkEntries() == truth.appLinkEntries())
        #expect(warm.applicationIDs(executing: tree.bin + "/real-bare") == ["bare.desktop"])
    }

    @Test func entryAdded() async throws {
        let tree = try await warmTree()
        tree.entry(1, "vendor/new.desktop", schemes: ["delta"])
        let r = expectAnswersLikeAScan(tree)
        #expect(r.handlers(forScheme: "delta") == ["vendor-new.desktop"])
        #expect(r.startup.filesParsed == 1)
    }

    @Test func entryRemoved() async throws {
        let tree = try await warmTree()
        unlink(tree.apps(1) + "/vendor/b.desktop")
        let r = expectAnswersLikeAScan(tree)
        #expect(r.handlers(forScheme: "beta") == ["a.desktop"])
        #expect(r.startup.filesParsed == 0)
    }

    @Test func entryEditedWithSameSizeAndTimestamp() async throws {
        let tree = try await warmTree()
        let path = tree.apps(1) + "/a.desktop"
        var before = stat()
        stat(path, &before)
        // Same length, the mtime put back to the nanosecond: only the ctime tells.
        tree.entry(1, "a.desktop", schemes: ["alpha", "zeta"])
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, path, &times, 0)
        var after = stat()
        stat(path, &after)
        #expect(after.st_size == before.st_size)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        let r = expectAnswersLikeAScan(tree, schemes: ["alpha", "beta", "zeta"])
        #expect(r.handlers(forScheme: "zeta") == ["a.desktop"])
        #expect(r.handlers(forScheme: "beta") == ["vendor-b.desktop"])
    }

    /// With thousands of files (over 2,048: checked on two threads, the first part here, the
    /// rest on a second thread), an in-place edit that keeps the size and puts the mtime back is
    /// seen wherever the file falls: the start is served from the index before, not after.
    @Test func anInPlaceEditAmongThousandsOfFilesIsSeen() async throws {
        let tree = XDGTree()
        let n = 2_100
        for i in 0..<n { tree.entry(1, "app\(i).desktop", schemes: ["s\(i)"]) }
        await settle()
        run(tree)
        for i in [0, n / 2, n - 1] {
            let warm = Registry(environment: tree.environment, watch: false)
            #expect(warm.isServedFromIndex, "before editing app\(i)")
            warm.close()
            let path = tree.apps(1) + "/app\(i).desktop"
            var before = stat()
            stat(path, &before)
            tree.entry(1, "app\(i).desktop", schemes: ["t\(i)"])
            var times = [before.st_atim, before.st_mtim]
            utimensat(AT_FDCWD, path, &times, 0)
            var after = stat()
            stat(path, &after)
            #expect(after.st_size == before.st_size)
            let r = run(tree)
            #expect(!r.isServedFromIndex)
            #expect(r.startup.directoriesWalked == 0 && r.startup.filesParsed == 1)
            #expect(r.handlers(forScheme: "t\(i)") == [DesktopID(fileName: "app\(i).desktop")])
            #expect(r.handlers(forScheme: "s\(i)").isEmpty)
            #expect(r.handlers(forScheme: "s1") == ["app1.desktop"])  // never edited
            await settle()
            run(tree)  // the index vouches for every file again
        }
    }

    @Test func entryRenamed() async throws {
        let tree = try await warmTree()
        rename(tree.apps(1) + "/vendor/b.desktop", tree.apps(1) + "/vendor/c.desktop")
        let r = expectAnswersLikeAScan(tree)
        #expect(r.handlers(forScheme: "beta") == ["a.desktop", "vendor-c.desktop"])
        #expect(r.entry(id: "vendor-b.desktop") == nil)
    }

    @Test func entryMaskedInAHigherDirectory() async throws {
        let tree = try await warmTree()
        tree.entry(0, "low.desktop", schemes: [], extra: "Hidden=true")
        tree.entry(1, "a.desktop", schemes: ["alpha", "beta"])  // rewritten, same content
        tree.entry(0, "vendor-b.desktop", schemes: ["delta"])
        let r = expectAnswersLikeAScan(tree)
        #expect(r.handlers(forScheme: "gamma") == [])
        #expect(r.handlers(forScheme: "beta") == ["a.desktop"])
        #expect(r.handlers(forScheme: "delta") == ["vendor-b.desktop"])
    }

    @Test func entryMadeUnreadable() async throws {
        let tree = try await warmTree()
        // (As root a mode of 000 still reads; the answer must then be what a scan gives, too.)
        chmod(tree.apps(1) + "/a.desktop", 0)
        chmod(tree.apps(1) + "/vendor", 0)
        defer { chmod(tree.apps(1) + "/vendor", 0o755) }
        let r = expectAnswersLikeAScan(tree)
        #expect(r.startup.filesParsed >= 1)
        if geteuid() != 0 {
            #expect(r.handlers(forScheme: "beta") == [])
        }
    }

    @Test func wholeDirectoryReplaced() async throws {
        let tree = try await warmTree()
        let dir = tree.apps(1)
        try FileManager.default.removeItem(atPath: dir)
        // Same names, same sizes, other schemes.
        tree.entry(1, "a.desktop", schemes: ["delta", "beta"])
        tree.entry(1, "vendor/b.desktop", schemes: ["gamma"])
        let r = expectAnswersLikeAScan(tree)
        #expect(r.handlers(forScheme: "alpha") == ["user.desktop"])
        #expect(r.handlers(forScheme: "beta") == ["a.desktop"])
        #expect(r.handlers(forScheme: "gamma") == ["vendor-b.desktop", "low.desktop"])
    }

    @Test func directoryAppearsAndDisappears() async throws {
        let tree = XDGTree(dataDirCount: 2, createDirectories: false)
        tree.mkdir(tree.home)  // the data dirs come and go; the home (the index's cache) is there
        tree.entry(1, "a.desktop", schemes: ["alpha"])
        await settle()
        run(tree)
        #expect(run(tree).startup.filesParsed == 0)
        tree.entry(0, "user.desktop", schemes: ["alpha"])
        let r = expectAnswersLikeAScan(tree)
        #expect(r.handlers(forScheme: "alpha") == ["user.desktop", "a.desktop"])
        try FileManager.default.removeItem(atPath: tree.apps(1))
        #expect(expectAnswersLikeAScan(tree).handlers(forScheme: "alpha") == ["user.desktop"])
    }

    @Test func tryExecIsDecidedAtEachStart() async throws {
        let tree = try await warmTree()
        tree.entry(1, "tool.desktop", schemes: ["delta"], extra: "TryExec=late-tool")
        await settle()
        run(tree)
        #expect(run(tree).handlers(forScheme: "delta") == [])
        tree.mkdir(tree.bin)
        let tool = tree.bin + "/late-tool"
        tree.write(tool, "#!/bin/sh\n")
        chmod(tool, 0o755)
        let r = run(tree)
        #expect(r.startup.filesParsed == 0)
        #expect(r.handlers(forScheme: "delta") == ["tool.desktop"])
    }

    // MARK: a damaged or foreign index

    func damage(_ tree: XDGTree, _ edit: (inout [UInt8]) -> Void) throws -> Registry {
        let path = try #require(run(tree).indexPath)
        var bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        edit(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return expectAnswersLikeAScan(tree)
    }

    func expectFallback(_ r: Registry, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.startup.usedIndex == false, sourceLocation: sourceLocation)
        #expect(r.startup.indexRejection?.contains(reason) == true, "\(r.startup.indexRejection ?? "nil")", sourceLocation: sourceLocation)
        let logged = r.recentWarnings.filter { $0.message.contains("registry index not used") }
        #expect(logged.count == 1, sourceLocation: sourceLocation)
    }

    @Test func corruptIndexFallsBackAndIsRewritten() async throws {
        let tree = try await warmTree()
        let r = try damage(tree) { b in b[b.count / 2] ^= 0x5A }
        expectFallback(r, "checksum")
        // The scan wrote a good index again.
        let next = run(tree)
        #expect(next.startup.usedIndex && next.startup.filesParsed == 0)
    }

    @Test func truncatedIndexFallsBack() async throws {
        let tree = try await warmTree()
        expectFallback(try damage(tree) { b in b.removeLast(b.count / 3) }, "truncated")
        expectFallback(try damage(tree) { b in b.removeLast(b.count - 20) }, "truncated")
        expectFallback(try damage(tree) { b in b.removeAll() }, "truncated")
    }

    @Test func otherVersionOrByteOrderFallsBack() async throws {
        let tree = try await warmTree()
        expectFallback(try damage(tree) { b in b[12] = 0 }, "format version")
        // Version 7 had no masked table: its bytes are never read as version 8's.
        expectFallback(try damage(tree) { b in b[12] = 7 }, "format version 7, this service reads 8")
        expectFallback(try damage(tree) { b in
            b.replaceSubrange(8..<12, with: withUnsafeBytes(of: RegistryIndexCodec.byteOrderMark.byteSwapped) { Array($0) })
        }, "byte order")
        expectFallback(try damage(tree) { b in b[0] = UInt8(ascii: "X") }, "not a registry index")
    }

    /// What each entry masks (same ID, lower directories) is answered from the index as a scan
    /// answers it, without building the model (version 8); forged masked rows are refused or
    /// name only records of that ID whose files were checked.
    @Test func maskedEntriesAreAnsweredFromTheIndexAndForgedOnesRefused() async throws {
        let tree = XDGTree()
        tree.entry(0, "app.desktop", schemes: ["alpha"], exec: "/bin/echo user %u")
        tree.entry(1, "app.desktop", schemes: ["alpha", "beta"])
        tree.entry(2, "app.desktop", schemes: ["gamma"], extra: "TryExec=/nonexistent\n")
        tree.entry(0, "gone.desktop", schemes: [], extra: "Hidden=true")
        tree.entry(2, "gone.desktop", schemes: ["beta"])
        tree.entry(1, "mid.desktop", schemes: ["beta"])
        tree.entry(2, "mid.desktop", schemes: ["beta"])
        tree.entry(0, "alone.desktop", schemes: ["gamma"])
        await settle()
        let path = try #require(run(tree).indexPath)
        let truth = scanned(tree)
        let ids: [DesktopID] = ["app.desktop", "mid.desktop", "alone.desktop"]
        let warm = Registry(environment: tree.environment, watch: false)
        #expect(warm.isServedFromIndex)
        for id in ids { #expect(warm.maskedEntries(id: id) == truth.maskedEntries(id: id), "\(id)") }
        #expect(warm.maskedEntries(id: "app.desktop").count == 2, "an ineligible masked entry counts too")
        #expect(warm.maskedEntries(id: "mid.desktop").map(\.path) == [tree.apps(2) + "/mid.desktop"])
        #expect(warm.isServedFromIndex, "listing what an entry masks built the model")
        // What an ID that is no eligible entry masks (a `Hidden` one's) is read from the records.
        #expect(warm.maskedEntries(id: "gone.desktop") == truth.maskedEntries(id: "gone.desktop"))
        #expect(warm.maskedEntries(id: "gone.desktop").count == 1)
        warm.close()

        let good = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        var rng = SystemRandomNumberGenerator()
        let header = RegistryIndexCodec.headerSize
        for round in 0..<200 {
            var b = good
            // Damage near the end: the resolved section, where the masked table is.
            let from = max(header, b.count - 400)
            for _ in 0..<(1 + round % 3) { b[Int.random(in: from..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            let sum = b.withUnsafeBytes { IndexChecksum.of(UnsafeRawBufferPointer(rebasing: $0[header...])) }
            withUnsafeBytes(of: sum) { b.replaceSubrange(24..<32, with: $0) }
            try Data(b).write(to: URL(fileURLWithPath: path))
            let r = Registry(environment: tree.environment, watch: false, index: .directory(FileSystem.dirname(path)))
            for id in ids {
                let paths = Set(truth.maskedEntries(id: id).map(\.path))
                for masked in r.maskedEntries(id: id) {
                    #expect(masked.id == id && paths.contains(masked.path), "round \(round): \(masked.path) for \(id)")
                }
            }
            r.close()
        }
    }

    @Test func indexWritableByOthersIsNotTrusted() async throws {
        let tree = try await warmTree()
        let path = try #require(run(tree).indexPath)
        chmod(path, 0o666)
        expectFallback(expectAnswersLikeAScan(tree), "writable by others")
    }

    /// A forged index that passes the checksum (anyone can compute it) is still checked field
    /// by field and never read out of bounds: random damage either is refused or gives what
    /// the desktop files say.
    @Test func forgedIndexNeverCrashesNorLies() async throws {
        let tree = try await warmTree()
        let path = try #require(run(tree).indexPath)
        let good = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        let truth = scanned(tree)
        var rng = SystemRandomNumberGenerator()
        let header = RegistryIndexCodec.headerSize
        for round in 0..<300 {
            var b = good
            switch round % 3 {
            case 0:
                for _ in 0..<(1 + round % 4) { b[Int.random(in: header..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            case 1:
                // A length or count field made huge.
                let at = Int.random(in: header..<(b.count - 4), using: &rng)
                b.replaceSubrange(at..<(at + 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
            default:
                b.removeSubrange(Int.random(in: header..<b.count, using: &rng)...)
            }
            let length = UInt64(b.count)
            withUnsafeBytes(of: length) { b.replaceSubrange(16..<24, with: $0) }
            let sum = b.withUnsafeBytes { IndexChecksum.of(UnsafeRawBufferPointer(rebasing: $0[header...])) }
            withUnsafeBytes(of: sum) { b.replaceSubrange(24..<32, with: $0) }
            try Data(b).write(to: URL(fileURLWithPath: path))
            let r = Registry(environment: tree.environment, watch: false, index: .directory(FileSystem.dirname(path)))
            for s in ["alpha", "beta", "gamma"] where r.startup.usedIndex {
                // Believed only where the signatures match: a changed name or flag in a record
                // may stand, but never an entry the files do not have.
                for id in r.handlers(forScheme: s) {
                    #expect(truth.entry(id: id) != nil, "round \(round): \(id) for \(s)")
                }
            }
            r.close()
        }
    }

    @Test func unwritableCacheFallsBackAndLogsOnce() async throws {
        let tree = XDGTree()
        tree.entry(1, "a.desktop", schemes: ["alpha"])
        // A file where the cache directory should be: nothing can be written, not even by root.
        tree.write(tree.root + "/cache-file", "x")
        tree.extraEnvironment["XDG_CACHE_HOME"] = tree.root + "/cache-file"
        let r = Registry(environment: tree.environment, watch: false)
        #expect(r.handlers(forScheme: "alpha") == ["a.desktop"])
        r.saveIndex()
        r.saveIndex()
        r.close()
        let logged = r.recentWarnings.filter { $0.message.contains("cannot write the registry index") }
        #expect(logged.count == 1)
        let again = run(tree)
        #expect(again.startup.usedIndex == false)
        #expect(again.handlers(forScheme: "alpha") == ["a.desktop"])
    }

    /// A home that is gone (removed, or a test's tree after it went) is never made again for the
    /// index: nothing is written, the failure is logged once; a missing `~/.cache` under an existing
    /// home is made as before.
    @Test func aMissingHomeIsNeverCreatedForTheIndex() async throws {
        let tree = XDGTree()
        tree.entry(1, "a.desktop", schemes: ["alpha"])
        let home = tree.root + "/gone-home"
        tree.extraEnvironment["HOME"] = home
        tree.extraEnvironment.removeValue(forKey: "XDG_CACHE_HOME")
        let r = Registry(environment: tree.environment, watch: false)
        #expect(r.handlers(forScheme: "alpha") == ["a.desktop"])
        r.saveIndex()
        r.close()
        #expect(access(home, F_OK) != 0, "the index made a home")
        #expect(r.recentWarnings.contains { $0.message.contains("cannot write the registry index") && $0.message.contains("a home is never created") })
        tree.mkdir(home)
        let again = Registry(environment: tree.environment, watch: false)
        again.saveIndex()
        again.close()
        #expect(FileSystem.info(home + "/.cache/schemebridge").kind == .directory)
    }

    @Test func readOnlyCacheDirectoryFallsBack() async throws {
        let tree = try await warmTree()
        let r = run(tree)
        let dir = FileSystem.dirname(try #require(r.indexPath))
        try FileManager.default.removeItem(atPath: dir)
        tree.mkdir(dir)
        chmod(dir, 0o500)
        defer { chmod(dir, 0o700) }
        tree.entry(1, "vendor/new.desktop", schemes: ["delta"])
        let next = expectAnswersLikeAScan(tree)
        #expect(next.startup.usedIndex == false)
        #expect(next.handlers(forScheme: "delta") == ["vendor-new.desktop"])
    }

    @Test func twoServicesStartingAtOnceKeepTheIndexWhole() async throws {
        let tree = XDGTree()
        for i in 0..<200 { tree.entry(1, "app\(i).desktop", schemes: ["s\(i % 10)"]) }
        await settle()
        let env = tree.environment
        for _ in 0..<5 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let r = Registry(environment: env, watch: false)
                        r.saveIndex()
                        r.close()
                    }
                }
            }
            let r = run(tree)
            #expect(r.startup.indexRejection == nil)
            #expect(r.startup.usedIndex)
            #expect(r.handlers(forScheme: "s3").count == 20)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileSystem.dirname(try #require(run(tree).indexPath)))
        #expect(leftovers.filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func liveChangesAreWrittenToTheIndex() async throws {
        let tree = try await warmTree()
        let live = Registry(environment: tree.environment, watch: true)
        tree.entry(1, "vendor/live.desktop", schemes: ["delta"])
        let seen = await waitUntil(timeout: .seconds(10)) { live.handlers(forScheme: "delta") == ["vendor-live.desktop"] }
        #expect(seen != nil)
        live.close()
        let next = expectAnswersLikeAScan(tree)
        #expect(next.startup.usedIndex)
        #expect(next.handlers(forScheme: "delta") == ["vendor-live.desktop"])
    }

    /// Directories the index knows are watched without listing them; one it does not know yet
    /// (it appeared since) is found and watched too, and later changes anywhere are seen.
    @Test func watchesArmedFromTheIndexSeeEveryLaterChange() async throws {
        let tree = try await warmTree()
        let warm = Registry(environment: tree.environment, watch: true)
        #expect(warm.startup.usedIndex && warm.startup.filesParsed == 0)
        tree.entry(1, "vendor/live.desktop", schemes: ["delta"])
        #expect(await waitUntil(timeout: .seconds(10)) { warm.handlers(forScheme: "delta") == ["vendor-live.desktop"] } != nil)
        warm.close()

        tree.entry(1, "newsub/x.desktop", schemes: ["epsilon"])
        let live = Registry(environment: tree.environment, watch: true)
        defer { live.close() }
        #expect(live.handlers(forScheme: "epsilon") == ["newsub-x.desktop"])
        tree.entry(1, "newsub/y.desktop", schemes: ["zeta"])
        tree.entry(1, "vendor/deeper/z.desktop", schemes: ["eta"])
        #expect(await waitUntil(timeout: .seconds(10)) { live.handlers(forScheme: "zeta") == ["newsub-y.desktop"] } != nil)
        #expect(await waitUntil(timeout: .seconds(10)) { live.handlers(forScheme: "eta") == ["vendor-deeper-z.desktop"] } != nil)
    }

    @Test func otherLocaleUsesItsOwnIndex() async throws {
        let tree = XDGTree()
        tree.entry(1, "a.desktop", schemes: ["alpha"], extra: "Name[de]=Deutsch")
        await settle()
        run(tree)
        tree.extraEnvironment["LANG"] = "de_DE.UTF-8"
        let de = run(tree)
        #expect(de.startup.usedIndex == false)
        #expect(de.entry(id: "a.desktop")?.name == "Deutsch")
        #expect(run(tree).entry(id: "a.desktop")?.name == "Deutsch")
    }

    /// The index stores answers, and reserved schemes are resolved without the association lists
    /// of applications directories the user can write: answers resolved under another set of
    /// reserved schemes are never served (the records still are).
    @Test func answersFollowTheReservedSchemesInForce() async throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.entry(1, "bank.desktop", schemes: ["bank"])
        tree.list(tree.apps(0) + "/mimeapps.list", removed: ["bank": "bank.desktop;"])
        await settle()
        func run(reserving extra: Set<String>) -> Registry {
            let r = Registry(environment: tree.environment, watch: false, reservedSchemes: Policy.defaultReservedSchemes.union(extra))
            r.close()
            return r
        }
        #expect(run(reserving: []).handlers(forScheme: "bank").isEmpty, "not reserved: the removal counts")
        let warm = run(reserving: [])
        #expect(warm.startup.usedIndex && warm.startup.filesParsed == 0)
        #expect(warm.handlers(forScheme: "bank").isEmpty)
        let reserved = run(reserving: ["bank"])
        #expect(reserved.startup.usedIndex && reserved.startup.filesParsed == 0, "the records are used")
        #expect(reserved.handlers(forScheme: "bank") == ["bank.desktop"], "the answer stored under the other rule is not")

        // Served from the index, a registry told of a new reserved scheme answers by it, and says so.
        let live = Registry(environment: tree.environment, watch: false)
        defer { live.close() }
        #expect(live.startup.usedIndex && live.handlers(forScheme: "bank").isEmpty)
        let changes = ChangeCollector(live.changes())
        live.useReservedSchemes(Policy.defaultReservedSchemes.union(["bank"]))
        #expect(live.handlers(forScheme: "bank") == ["bank.desktop"])
        #expect(await waitUntil(timeout: .seconds(30)) { changes.all == ["bank"] } != nil, "\(changes.all)")
        live.useReservedSchemes(Policy.defaultReservedSchemes)
        #expect(live.handlers(forScheme: "bank").isEmpty)
    }
}
