import Foundation
import Testing
@testable import SchemeBridgeCore

/// The pasteboard rules without a bus: who sees what, names per owner, grants, patterns, quotas
/// and the disk format surviving a reload.
@Suite struct PasteboardStoreTests {
    let owner = Caller(busName: ":1.1", id: "org.example.Editor", lineage: [100])
    let viewer = Caller(busName: ":1.2", id: "org.example.Viewer", lineage: [200, 1])
    let stranger = Caller(busName: ":1.3", id: "org.example.Stranger", lineage: [300])

    /// One item of `text/plain` (plus `extra` types).
    func text(_ s: String, _ extra: [(type: String, data: SealedData)] = []) throws -> [[(type: String, data: SealedData)]] {
        [[(type: "text/plain", data: try SealedData.make(bytes: Array(s.utf8)))] + extra]
    }

    @Test func onlyOwnerAndGranteesSeeItAndNamesArePerOwner() throws {
        let store = PasteboardStore(disk: nil)
        let board = try store.create(name: "notes", persistent: false, expiresIn: nil, caller: owner)
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.find(name: "notes", caller: stranger) }
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.board(board.id, caller: stranger) }
        // The stranger's own "notes" is another pasteboard; the owner still finds its own.
        let theirs = try store.create(name: "notes", persistent: false, expiresIn: nil, caller: stranger)
        #expect(theirs.id != board.id)
        #expect(try store.find(name: "notes", caller: owner).id == board.id)
        try store.changeGrants(board.id, [try AppIDPattern("org.example.*")], revoke: false, caller: owner)
        #expect(try store.find(name: "notes", caller: viewer).id == board.id)
        // A reader may not write or grant; the owner's own app from another connection may.
        #expect(throws: PasteboardError.self) { try store.setItems(board.id, try text("x"), caller: viewer) }
        let ownerElsewhere = Caller(busName: ":1.9", id: "org.example.Editor")
        #expect(try store.setItems(board.id, try text("hello"), caller: ownerElsewhere).0 == 1)
        try store.changeGrants(board.id, [try AppIDPattern("org.example.*")], revoke: true, caller: owner)
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.find(name: "notes", caller: viewer) }
    }

    @Test func aLaunchGrantFollowsTheProcessAndItsChildrenUntilDropped() throws {
        let store = PasteboardStore(disk: nil)
        let board = try store.create(name: "", persistent: false, expiresIn: nil, caller: owner)
        #expect(board.name.hasPrefix("pasteboard-") && board.name.count == 43)
        store.addLaunchGrant(board.id, .process(200))
        let child = Caller(busName: ":1.7", id: "/usr/bin/python3", lineage: [201, 200, 1])
        #expect(try store.board(board.id, caller: child).1 == .reader)
        store.dropLaunchGrant(.process(200))
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.board(board.id, caller: child) }
    }

    @Test func patternsAreCheckedAndMatchByPrefix() throws {
        #expect(throws: PasteboardError.self) { try AppIDPattern("*") }
        #expect(throws: PasteboardError.self) { try AppIDPattern("org*") }
        #expect(throws: PasteboardError.self) { try AppIDPattern("org.ex ample") }
        let p = try AppIDPattern("org.example.*")
        #expect(p.matches("org.example.Viewer") && !p.matches("org.examples.Viewer") && !p.matches("org.example"))
        #expect(try AppIDPattern("/usr/bin/python3.11").matches("/usr/bin/python3.11"))
    }

    /// A pattern is matched against a caller's identity, not against text: a caller named by its
    /// desktop file (`org.example.Viewer.desktop`) is the app the pattern names.
    @Test func aPatternMatchesACallersIdentityHoweverItWasSpelled() throws {
        let p = try AppIDPattern("org.example.Viewer")
        #expect(p.matches(try CallerID(checking: "org.example.Viewer.desktop")))
        #expect(try AppIDPattern("snap.*").matches(try CallerID(checking: "snap.firefox")))
        #expect(!p.matches(try CallerID(checking: "/usr/bin/org.example.Viewer")))
    }

    /// The quota key is a type: an app's own, or the one shared by executables and the
    /// unidentified (issue 36, item 3: it was the text `"\0unidentified"`).
    @Test func theQuotaKeyOfAnOwner() throws {
        #expect(PasteboardQuotaKey(owner: nil) == .shared)
        #expect(PasteboardQuotaKey(owner: try CallerID(checking: "/usr/bin/python3")) == .shared)
        #expect(PasteboardQuotaKey(owner: try CallerID(checking: "org.example.App.desktop")) == .owner("org.example.App"))
        #expect(PasteboardQuotaKey(owner: try CallerID(checking: "snap.firefox")) == .owner("snap.firefox"))
        #expect(PasteboardQuotaKey.shared < .owner(try CallerID(checking: " a")), "the shared key sorts first, as its text did")
    }

    /// Issue 27, item 5: a desktop id as `handlers` prints it names its app (before, the suffix
    /// was kept and `org.example.Viewer.desktop` matched no app id, silently).
    @Test func aDesktopIDWithItsSuffixNamesItsApp() throws {
        let p = try AppIDPattern("org.example.Viewer.desktop")
        #expect(p.text == "org.example.Viewer" && p.matches("org.example.Viewer"))
        #expect(try AppIDPattern(".desktop").text == ".desktop")
    }

    @Test func quotasCountPerOwner() throws {
        var limits = PasteboardLimits()
        limits.maximumPerOwner = 1
        limits.maximumBytesPerOwner = 10
        let store = PasteboardStore(disk: nil, limits: { [limits] in limits })
        let board = try store.create(name: "a", persistent: false, expiresIn: nil, caller: owner)
        #expect(throws: PasteboardError.self) { try store.create(name: "b", persistent: false, expiresIn: nil, caller: owner) }
        _ = try store.create(name: "b", persistent: false, expiresIn: nil, caller: stranger)
        #expect(throws: PasteboardError.self) { try store.setItems(board.id, try text("eleven bytes"), caller: owner) }
        #expect(try store.setItems(board.id, try text("ten bytes!"), caller: owner).0 == 1)
    }

    @Test func persistentPasteboardsComeBackFromDiskWithGrantsAndData() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-pb-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let disk = PasteboardDisk(directory: dir)
        let first = PasteboardStore(disk: disk)
        let board = try first.create(name: "kept name %09%", persistent: true, expiresIn: 3600, caller: owner)
        _ = try first.setItems(board.id, try text("persisted", [(type: "image/png", data: try SealedData.make(bytes: [1, 2, 3]))]), caller: owner)
        try first.changeGrants(board.id, [try AppIDPattern("org.example.Viewer")], revoke: false, caller: owner)
        // A lifetime edited into the file (the state directory is the user's) is held to MaxExpiry.
        let meta = dir + "/" + board.id + "/meta"
        let text = try String(contentsOfFile: meta, encoding: .utf8)
        try text.replacingOccurrences(of: "expires\t\(board.expires)", with: "expires\t99999999999").write(toFile: meta, atomically: true, encoding: .utf8)
        // Damage next to it is removed with a warning, never loaded.
        try FileManager.default.createDirectory(atPath: dir + "/" + String(repeating: "a", count: 32), withIntermediateDirectories: true)
        let second = PasteboardStore(disk: disk)
        var warnings: [String] = []
        #expect(second.restore { warnings.append($0) } == 1)
        #expect(warnings.count == 1)
        let found = try second.find(name: "kept name %09%", caller: viewer)
        #expect(found.id == board.id && found.changeCount == 1 && found.persistent)
        #expect(found.expires <= PasteboardStore.now() + 7 * 86_400, "\(found.expires)")
        #expect(try second.data(board.id, item: 0, type: "TEXT/PLAIN", caller: viewer).bytes() == Array("persisted".utf8))
        #expect(try second.data(board.id, item: 0, type: "image/png", caller: owner).bytes() == [1, 2, 3])
        try second.delete(board.id, caller: viewer)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir)) == [])
    }

    /// A persistent pasteboard as the service wrote it before its owner was typed (main at
    /// ef9db2b): the same bytes load, the owner owns it, a grantee reads it, and saving it
    /// again writes the owner line byte for byte as before.
    @Test func aPasteboardWrittenBeforeTheOwnerWasTypedStillLoads() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-pb-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let id = "0123456789abcdef0123456789abcdef"
        try FileManager.default.createDirectory(atPath: dir + "/" + id, withIntermediateDirectories: true)
        let expires = PasteboardStore.now() + 3600
        let meta = "schemebridge-pasteboard 1\nname\tkept\nowner\torg.example.Editor\nexpires\t\(expires)\nchanges\t1\n"
            + "grant\torg.example.Viewer\nitem\t0\ttext/plain\tc1-0-0\t9\n"
        try meta.write(toFile: dir + "/" + id + "/meta", atomically: false, encoding: .utf8)
        try "persisted".write(toFile: dir + "/" + id + "/c1-0-0", atomically: false, encoding: .utf8)
        // An owner no caller can be (a relative path) is damage, like an empty one.
        let bad = String(repeating: "b", count: 32)
        try FileManager.default.createDirectory(atPath: dir + "/" + bad, withIntermediateDirectories: true)
        try meta.replacingOccurrences(of: "org.example.Editor", with: "bin/tool").write(toFile: dir + "/" + bad + "/meta", atomically: false, encoding: .utf8)
        let store = PasteboardStore(disk: PasteboardDisk(directory: dir))
        var warnings: [String] = []
        #expect(store.restore { warnings.append($0) } == 1)
        #expect(warnings.count == 1 && warnings.first?.contains(bad) == true, "\(warnings)")
        let board = try store.find(name: "kept", caller: owner)
        #expect(board.id == id && board.ownerApp == "org.example.Editor" && board.quotaKey == .owner("org.example.Editor"))
        #expect(try store.board(id, caller: owner).1 == .owner)
        #expect(try store.data(id, item: 0, type: "text/plain", caller: viewer).bytes() == Array("persisted".utf8))
        // Saved again (a grant changes): the same lines, the new grant added.
        try store.changeGrants(id, [try AppIDPattern("org.example.Other")], revoke: false, caller: owner)
        let written = try String(contentsOfFile: dir + "/" + id + "/meta", encoding: .utf8)
        #expect(written == meta.replacingOccurrences(of: "grant\torg.example.Viewer\n", with: "grant\torg.example.Viewer\ngrant\torg.example.Other\n"), "\(written)")
    }
}
